import { describe, expect, it } from "vitest";
import { parseProxyUrl, proxyFor, UnsupportedProxySchemeError } from "./proxy-rules.js";

// Requests through real proxies are tested in test/integration/scm/proxy.test.ts and proxy-schemes.test.ts.

describe("which requests --scm-no-proxy sends direct", () => {
  it.each([
    // name; target; no-proxy list; proxied?
    { name: "no list proxies everything remote", target: "https://api.github.com/x", noProxy: "", proxied: true },
    { name: "a star bypasses everything", target: "https://api.github.com/x", noProxy: "*", proxied: false },
    { name: "a domain matches itself", target: "https://github.com/x", noProxy: "github.com", proxied: false },
    { name: "a domain matches its subdomains", target: "https://api.github.com/x", noProxy: "example.org, github.com", proxied: false },
    {
      name: "a domain does not match a longer name that merely ends the same",
      target: "https://notgithub.com/x",
      noProxy: "github.com",
      proxied: true,
    },
    { name: "a leading dot matches subdomains only", target: "https://github.com/x", noProxy: ".github.com", proxied: true },
    { name: "a star-dot entry matches subdomains", target: "https://api.github.com/x", noProxy: "*.github.com", proxied: false },
    { name: "a port must match when given", target: "https://ghe.corp:8443/x", noProxy: "ghe.corp:443", proxied: true },
    { name: "the default port counts as the port", target: "https://ghe.corp/x", noProxy: "ghe.corp:443", proxied: false },
    { name: "an IP matches exactly", target: "http://10.1.2.3/x", noProxy: "10.1.2.3", proxied: false },
    { name: "a CIDR matches addresses inside it", target: "http://10.1.2.3/x", noProxy: "10.0.0.0/8", proxied: false },
    { name: "a CIDR does not match addresses outside it", target: "http://11.1.2.3/x", noProxy: "10.0.0.0/8", proxied: true },
    { name: "an IPv6 CIDR works", target: "http://[fd00::5]/x", noProxy: "fd00::/8", proxied: false },
    { name: "names are compared case-insensitively", target: "https://GHE.Corp/x", noProxy: "ghe.CORP", proxied: false },
    { name: "localhost is never proxied", target: "http://localhost:8080/x", noProxy: "", proxied: false },
    { name: "loopback addresses are never proxied", target: "http://127.0.0.2/x", noProxy: "", proxied: false },
  ])("$name", ({ target, noProxy, proxied }) => {
    expect(proxyFor(new URL(target), { url: "http://proxy.corp:3128", noProxy }) !== undefined).toBe(proxied);
  });

  it("reads a proxy without a scheme as http and no proxy URL as none", () => {
    expect(proxyFor(new URL("https://github.com"), { url: "proxy.corp:3128", noProxy: "" })?.href).toBe("http://proxy.corp:3128/");
    expect(proxyFor(new URL("https://github.com"), { url: "", noProxy: "" })).toBeUndefined();
  });
});

describe("which proxy URLs --scm-proxy-url takes", () => {
  it.each([
    // given; the proxy read from it
    { given: "http://proxy.corp:3128", want: "http://proxy.corp:3128/" },
    { given: "https://me:p%40ss@proxy.corp", want: "https://me:p%40ss@proxy.corp/" },
    { given: "socks5://proxy.corp:1080", want: "socks5://proxy.corp:1080" },
    { given: "socks5h://proxy.corp", want: "socks5h://proxy.corp" },
    { given: "10.0.0.1:3128", want: "http://10.0.0.1:3128/" },
    { given: " proxy.corp:3128 ", want: "http://proxy.corp:3128/" },
  ])("$given", ({ given, want }) => {
    expect(parseProxyUrl(given).href).toBe(want);
  });

  it.each(["ftp://proxy.corp:21", "socks4://proxy.corp:1080", "SOCKS://proxy.corp"])("refuses %s, naming the schemes it takes", (given) => {
    expect(() => parseProxyUrl(given)).toThrow(UnsupportedProxySchemeError);
    expect(() => parseProxyUrl(given)).toThrow(
      /^unsupported SCM proxy scheme "\w+" in --scm-proxy-url: use one of http:\/\/, https:\/\/, socks5:\/\/, socks5h:\/\/$/,
    );
  });

  it("gives the refusal a stable reason", () => {
    expect(new UnsupportedProxySchemeError("ftp")).toMatchObject({ reason: "UnsupportedProxyScheme", scheme: "ftp" });
  });

  it("never reads the proxy URL for a bypassed target, so a bad one fails only proxied requests", () => {
    const settings = { url: "ftp://proxy.corp:21", noProxy: "ghe.corp" };
    expect(proxyFor(new URL("https://ghe.corp/x"), settings)).toBeUndefined();
    expect(() => proxyFor(new URL("https://github.com/x"), settings)).toThrow(UnsupportedProxySchemeError);
  });
});
