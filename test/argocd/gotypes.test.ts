/**
 * The spec equivalence's table of Go kinds (src/api/go-types.ts) is what Argo CD's own types say at
 * the pinned release: regenerated here from the Go module (test/argocd/gotypes.sh) and compared, so
 * an Argo CD upgrade that adds or changes a field shows up at once.
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

describe("src/api/go-types.ts", () => {
  it("is what test/argocd/gotypes.sh prints from Argo CD's Go types", () => {
    const script = new URL("./gotypes.sh", import.meta.url).pathname;
    const fresh = execFileSync("bash", [script, "--stdout"], { encoding: "utf8", maxBuffer: 16 * 1024 * 1024, timeout: 600_000 });
    const committed = readFileSync(new URL("../../src/api/go-types.ts", import.meta.url), "utf8");
    expect(committed).toBe(fresh);
  }, 600_000);
});
