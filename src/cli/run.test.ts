import { describe, expect, it } from "vitest";
import { run } from "./run.js";

function invoke(...argv: string[]): { code: number; out: string; err: string } {
  let out = "";
  let err = "";
  const code = run(argv, (s) => (out += s), (s) => (err += s));
  return { code, out, err };
}

describe("appset", () => {
  it("prints the package version", () => {
    const r = invoke("version");
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^appset \d+\.\d+\.\d+\n$/);
  });

  it("prints usage with no command", () => {
    expect(invoke().out).toContain("Usage: appset <command>");
  });

  it("rejects an unknown command with exit code 2 and the usage on stderr", () => {
    const r = invoke("frobnicate");
    expect(r.code).toBe(2);
    expect(r.err).toContain('unknown command "frobnicate"');
  });
});
