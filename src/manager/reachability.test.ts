import { describe, expect, it } from "vitest";
import { answered, ApiserverReachability, ServerReachability } from "./reachability.js";

describe("answered", () => {
  it.each([
    ["200", true],
    ["201", true],
    ["404", true],
    ["409", true],
    ["429", false],
    ["500", false],
    ["503", false],
    ["<error>", false],
    ["", false],
  ])("%s: %s", (code, expected) => {
    expect(answered(code)).toBe(expected);
  });
});

describe("ApiserverReachability", () => {
  it("tells its listeners once when the apiserver answers after failures, and not while it keeps answering", () => {
    const r = new ApiserverReachability();
    const told: string[] = [];
    r.onBack(() => told.push("a"));
    const off = r.onBack(() => told.push("b"));
    r.observe({ code: "200" });
    expect(told).toEqual([]);
    r.observe({ code: "<error>" });
    r.observe({ code: "503" });
    expect(told).toEqual([]);
    r.observe({ code: "404" });
    r.observe({ code: "200" });
    expect(told).toEqual(["a", "b"]);
    off();
    r.observe({ code: "429" });
    r.observe({ code: "201" });
    expect(told).toEqual(["a", "b", "a"]);
  });
});

describe("ServerReachability", () => {
  it("tells its listeners which server answers after failures, each server on its own", () => {
    const r = new ServerReachability();
    const told: string[] = [];
    r.onBack((server) => told.push(server));
    r.observe({ code: "<error>", host: "one:6443" });
    r.observe({ code: "503", host: "two:6443" });
    r.observe({ code: "200", host: "three:6443" });
    r.observe({ code: "200", host: "two:6443" });
    r.observe({ code: "200", host: "two:6443" });
    expect(told).toEqual(["two:6443"]);
    r.observe({ code: "404", host: "one:6443" });
    expect(told).toEqual(["two:6443", "one:6443"]);
  });
});
