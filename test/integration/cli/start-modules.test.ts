/**
 * What the `controller` command loads before it runs (docs/controller.md#memory-at-start): the code
 * of features a configuration may not use loads on first use, never at start. A child Node process
 * imports the command's modules as `appset controller` does (src/cli/run.ts, then
 * src/cli/controller.ts) with a module hook that records every module loaded, ECMAScript and
 * CommonJS alike; each entry below must be missing from that list, so a static import that brings
 * one back fails here. The same holds for the shipped program, bundled by scripts/build.ts: started
 * as `appset controller --help`, the bundle's files it loads must hold none of those sources.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildProgram, type BuiltProgram } from "../../support/program.js";
import { REPO_ROOT } from "../../unit/deploy/kustomize.js";

const dir = mkdtempSync(join(tmpdir(), "appset-start-modules-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A preload that records the URL of every module loaded and writes them as JSON at exit into $MODULES_OUT. */
const HOOK = `import { registerHooks } from "node:module";
import { writeFileSync } from "node:fs";
const seen = new Set();
registerHooks({ load(url, context, next) { seen.add(url); return next(url, context); } });
process.on("exit", () => writeFileSync(process.env.MODULES_OUT, JSON.stringify([...seen])));
`;

/** The URLs of the modules loaded by running node with `args` (in the repository) under the hook. */
function loadedBy(args: readonly string[]): string[] {
  const hook = join(dir, "record-modules.mjs");
  writeFileSync(hook, HOOK);
  const out = join(dir, "modules.json");
  execFileSync(process.execPath, ["--import", hook, ...args], {
    cwd: REPO_ROOT,
    env: { ...process.env, MODULES_OUT: out },
    stdio: "ignore",
    timeout: 60_000,
  });
  return JSON.parse(readFileSync(out, "utf8")) as string[];
}

/** The URLs of the modules loaded by importing `modules` (paths under the repository) in order. */
function loadedBySources(modules: readonly string[]): string[] {
  const script = modules.map((m) => `await import(${JSON.stringify(`./${m}`)});`).join("\n");
  return loadedBy(["--import", "tsx", "--input-type=module", "-e", script]);
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
  const loaded = loadedBySources(["src/cli/run.ts", "src/cli/controller.ts"]);

  it("loads the controller's own modules (the hook sees them)", () => {
    expect(loaded.some((u) => u.endsWith("/src/cli/controller.ts"))).toBe(true);
    expect(loaded.some((u) => u.includes("/node_modules/zod/"))).toBe(true);
  });

  it.each(NOT_AT_START)("does not load $what", ({ part }) => {
    expect(loaded.filter((u) => u.includes(part))).toEqual([]);
  });
});

describe("the bundled program's controller command at start", () => {
  // The bundle as the image holds it: dist/cli beside package.json and node_modules.
  let program: BuiltProgram | undefined;
  let loaded: string[] = [];
  let files: string[] = [];
  afterAll(() => program?.remove());

  beforeAll(async () => {
    program = await buildProgram();
    const { main, meta } = program;
    const urls = loadedBy([main, "controller", "--help"]);
    files = urls.filter((u) => u.startsWith("file:")).map((u) => fileURLToPath(u));
    // A bundled file stands for the sources esbuild put into it; the rest are loaded as they are.
    loaded = files.flatMap((f) => {
      const output = meta.outputs[relative(REPO_ROOT, f)];
      return output === undefined ? [f] : Object.keys(output.inputs).map((input) => join(REPO_ROOT, input));
    });
  }, 60_000);

  it("starts from a handful of bundled files, holding the controller and zod", () => {
    const bundled = files.filter((f) => f.startsWith(join(program!.app, "dist")));
    expect(bundled.length).toBeGreaterThan(0);
    expect(bundled.length).toBeLessThanOrEqual(30);
    expect(loaded.some((f) => f.endsWith("/src/cli/controller.ts"))).toBe(true);
    expect(loaded.some((f) => f.includes("/node_modules/zod/"))).toBe(true);
  });

  it.each(NOT_AT_START)("does not load $what", ({ part }) => {
    expect(loaded.filter((f) => f.includes(part))).toEqual([]);
  });
});
