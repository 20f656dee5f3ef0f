import { describe, expect, it } from "vitest";
import { parseListenAddress } from "./http.js";

describe("parseListenAddress", () => {
  it.each([
    // addr: a Go listen address; host/port: what it binds
    { name: "a port alone listens on every interface", addr: ":8080", host: undefined, port: 8080 },
    { name: "an IPv4 host", addr: "127.0.0.1:0", host: "127.0.0.1", port: 0 },
    { name: "a bracketed IPv6 host", addr: "[::1]:8081", host: "::1", port: 8081 },
    { name: "a host name", addr: "localhost:7000", host: "localhost", port: 7000 },
  ])("reads $name", ({ addr, host, port }) => {
    expect(parseListenAddress(addr)).toEqual({ host, port });
  });

  it.each([
    { name: "no port", addr: "8080", message: "address 8080: missing port in address" },
    { name: "a named port", addr: ":http", message: "address :http: invalid port" },
    { name: "a port beyond 65535", addr: ":70000", message: "address :70000: invalid port" },
  ])("rejects $name", ({ addr, message }) => {
    expect(() => parseListenAddress(addr)).toThrow(message);
  });
});
