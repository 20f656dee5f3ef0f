import { describe, expect, it } from "vitest";
import { configUsage, parseConfig, type Config } from "./config.js";
import { parseRequestTimeout, REQUEST_TIMEOUT_ERROR } from "./values.js";

function config(argv: string[]): Config {
  const r = parseConfig(argv, {});
  if (r.kind !== "config") throw new Error(`expected a config, got ${JSON.stringify(r)}`);
  return r.config;
}

describe("kubectl's client flags", () => {
  it("accepts every clientcmd override Argo CD's controller registers", () => {
    const c = config([
      "--as=alice",
      "--as-group",
      "devs",
      "--as-uid=42",
      "--token=t0k",
      "--server=https://10.0.0.1:6443",
      "--request-timeout=5s",
      "--insecure-skip-tls-verify",
      "--certificate-authority=/ca.crt",
      "--client-certificate=/c.crt",
      "--client-key=/c.key",
      "--username=u",
      "--password=p",
      "--cluster=c1",
      "--context=ctx1",
      "--user=u1",
      "--kubeconfig=/kc",
      "--tls-server-name=api.example",
      "--disable-compression",
      "--proxy-url=http://proxy:3128",
    ]);
    expect(c).toMatchObject({
      as: "alice",
      asGroup: ["devs"],
      asUid: "42",
      token: "t0k",
      server: "https://10.0.0.1:6443",
      requestTimeout: "5s",
      insecureSkipTlsVerify: true,
      certificateAuthority: "/ca.crt",
      clientCertificate: "/c.crt",
      clientKey: "/c.key",
      username: "u",
      password: "p",
      cluster: "c1",
      context: "ctx1",
      user: "u1",
      kubeconfig: "/kc",
      tlsServerName: "api.example",
      disableCompression: true,
      proxyUrl: "http://proxy:3128",
    });
  });

  it("defaults to no override and a request timeout of 0", () => {
    expect(config([])).toMatchObject({ as: "", asGroup: [], token: "", server: "", requestTimeout: "0", insecureSkipTlsVerify: false });
  });

  it("repeats --as-group as pflag's StringArray: appended, never comma-split", () => {
    expect(config(["--as-group=a,b", "--as-group", "c"]).asGroup).toEqual(["a,b", "c"]);
  });

  it("refuses a request timeout clientcmd refuses, with its message", () => {
    for (const bad of ["soon", "-1", "-2s"]) {
      expect(parseConfig([`--request-timeout=${bad}`], {})).toEqual({ kind: "error", message: REQUEST_TIMEOUT_ERROR });
    }
  });

  it("lists the flags in the help with pflag's placeholders", () => {
    const help = configUsage();
    expect(help).toMatch(/--as-group stringArray +Group to impersonate/);
    expect(help).toMatch(/--request-timeout string +The length of time .*\(default "0"\)/);
    expect(help).toMatch(/ {4}--insecure-skip-tls-verify +If true/);
  });
});

describe("parseRequestTimeout", () => {
  it("reads a bare integer as seconds and anything else as a Go duration", () => {
    expect(parseRequestTimeout("0")).toEqual({ ok: true, value: 0 });
    expect(parseRequestTimeout("30")).toEqual({ ok: true, value: 30_000 });
    expect(parseRequestTimeout("1m30s")).toEqual({ ok: true, value: 90_000 });
    expect(parseRequestTimeout("250ms")).toEqual({ ok: true, value: 250 });
  });
});
