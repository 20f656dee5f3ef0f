import { describe, expect, it } from "vitest";
import { run } from "./run.js";

async function invoke(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = "";
  let err = "";
  const code = await run(argv, (s) => (out += s), (s) => (err += s));
  return { code, out, err };
}

describe("appset", () => {
  it("prints the package version", async () => {
    const r = await invoke("version");
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^appset \d+\.\d+\.\d+\n$/);
  });

  it("prints usage with no command", async () => {
    expect((await invoke()).out).toContain("Usage: appset <command>");
  });

  it("rejects an unknown command with exit code 2 and the usage on stderr", async () => {
    const r = await invoke("frobnicate");
    expect(r.code).toBe(2);
    expect(r.err).toContain('unknown command "frobnicate"');
  });
});

describe("appset generate through the dispatcher", () => {
  it("resolves to exit code 1 with the error on stderr when the file does not exist", async () => {
    const r = await invoke("generate", "-f", "does-not-exist.yaml");
    expect(r.code).toBe(1);
    expect(r.err).toContain("does-not-exist.yaml");
  });
});
