/**
 * What the `controller` command loads before it runs (docs/controller.md#memory-at-start): the code
 * of features a configuration may not use loads on first use, never at start. A child Node process
 * imports the command's modules as `appset controller` does (src/cli/run.ts, then
 * src/cli/controller.ts) with a module hook that records every module loaded, ECMAScript and
 * CommonJS alike; each entry below must be missing from that list, so a static import that brings
 * one back fails here.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { REPO_ROOT } from "../../unit/deploy/kustomize.js";

const dir = mkdtempSync(join(tmpdir(), "appset-start-modules-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A preload that records the URL of every module loaded and prints them as JSON at exit. */
const HOOK = `import { registerHooks } from "node:module";
const seen = new Set();
registerHooks({ load(url, context, next) { seen.add(url); return next(url, context); } });
process.on("exit", () => process.stdout.write(JSON.stringify([...seen])));
`;

/** The URLs of the modules loaded by importing `modules` (paths under the repository) in order. */
function loadedBy(modules: readonly string[]): string[] {
  const hook = join(dir, "record-modules.mjs");
  writeFileSync(hook, HOOK);
  const script = modules.map((m) => `await import(${JSON.stringify(`./${m}`)});`).join("\n");
  const out = execFileSync(process.execPath, ["--import", "tsx", "--import", hook, "--input-type=module", "-e", script], {
    cwd: REPO_ROOT,
    encoding: "utf8",
    timeout: 60_000,
  });
  return JSON.parse(out) as string[];
}

/** What stays out of the controller's start, and a part of the URL that gives it away. */
const NOT_AT_START = [
  { what: "client-node's package index (every generated API model)", part: "/node_modules/@kubernetes/client-node/dist/index.js" },
  { what: "the Lua VM of health scripts (fengari)", part: "/node_modules/fengari/" },
  { what: "the AWS SDK's credential providers", part: "/node_modules/@aws-sdk/" },
  { what: "the AWS SigV4 signer", part: "/node_modules/@smithy/signature-v4/" },
  { what: "the tar reader", part: "/node_modules/tar/" },
  { what: "the yaml library", part: "/node_modules/yaml/" },
  { what: "RE2JS", part: "/node_modules/re2js/" },
  { what: "the SCM proxy agents", part: "-proxy-agent/" },
  { what: "undici's package index", part: "/node_modules/undici/index.js" },
  { what: "the OCI registry client", part: "/src/oci/" },
  { what: "the sync engine", part: "/src/syncwaves/engine.ts" },
  { what: "the other appset commands", part: "/src/cli/generate.ts" },
  { what: "the profiler (node:inspector)", part: "node:inspector" },
];

describe("the controller command at start", () => {
  const loaded = loadedBy(["src/cli/run.ts", "src/cli/controller.ts"]);

  it("loads the controller's own modules (the hook sees them)", () => {
    expect(loaded.some((u) => u.endsWith("/src/cli/controller.ts"))).toBe(true);
    expect(loaded.some((u) => u.includes("/node_modules/zod/"))).toBe(true);
  });

  it.each(NOT_AT_START)("does not load $what", ({ part }) => {
    expect(loaded.filter((u) => u.includes(part))).toEqual([]);
  });
});
