import { describe, expect, it } from "vitest";
import { realmRefusal } from "./realm.js";

const HTTPS = new URL("https://registry.example.com/v2/org/app");
const HTTP = new URL("http://registry.example.com/v2/org/app");
const resolvesTo =
  (...addresses: string[]) =>
  () =>
    Promise.resolve(addresses);

describe("realmRefusal", () => {
  it.each([
    {
      name: "an https realm on a public host",
      realm: "https://auth.example.com/token",
      registry: HTTPS,
      lookup: resolvesTo("203.0.113.7"),
    },
    {
      name: "an http realm for a registry spoken to over http",
      realm: "http://auth.example.com/token",
      registry: HTTP,
      lookup: resolvesTo("203.0.113.7"),
    },
    {
      name: "the registry's own loopback host",
      realm: "https://127.0.0.1:5000/token",
      registry: new URL("https://127.0.0.1:5000/v2/x"),
      lookup: resolvesTo(),
    },
    {
      name: "a host that does not resolve",
      realm: "https://nowhere.invalid/token",
      registry: HTTPS,
      lookup: () => Promise.reject(new Error("ENOTFOUND")),
    },
    {
      name: "a private (RFC 1918) address, as oras-go's default list allows",
      realm: "https://10.0.0.5/token",
      registry: HTTPS,
      lookup: resolvesTo(),
    },
  ])("allows $name", async ({ realm, registry, lookup }) => {
    expect(await realmRefusal(realm, registry, lookup)).toBeUndefined();
  });

  it.each([
    {
      name: "an http realm for an https registry",
      realm: "http://auth.example.com/token",
      lookup: resolvesTo("203.0.113.7"),
      want: "uses http but registry was contacted over https",
    },
    { name: "another scheme", realm: "file:///etc/passwd", lookup: resolvesTo(), want: 'uses unsupported scheme "file"' },
    {
      name: "instance metadata",
      realm: "https://169.254.169.254/latest",
      lookup: resolvesTo(),
      want: 'bearer realm host "169.254.169.254" is 169.254.169.254',
    },
    { name: "loopback", realm: "https://127.0.0.2:8080/token", lookup: resolvesTo(), want: "is 127.0.0.2" },
    { name: "IPv6 loopback", realm: "https://[::1]/token", lookup: resolvesTo(), want: 'bearer realm host "::1"' },
    { name: "an IPv4-mapped loopback", realm: "https://[::ffff:127.0.0.1]/token", lookup: resolvesTo(), want: "is 127.0.0.1" },
    {
      name: "a name resolving to loopback",
      realm: "https://evil.example.net/token",
      lookup: resolvesTo("203.0.113.1", "127.0.0.1"),
      want: 'bearer realm host "evil.example.net" resolves to 127.0.0.1',
    },
    { name: "Azure's wire server", realm: "https://168.63.129.16/token", lookup: resolvesTo(), want: "is 168.63.129.16" },
    { name: "text that is not a URL", realm: "::not a url", lookup: resolvesTo(), want: "failed to parse bearer realm" },
  ])("refuses $name", async ({ realm, lookup, want }) => {
    expect(await realmRefusal(realm, HTTPS, lookup)).toContain(want);
  });
});
