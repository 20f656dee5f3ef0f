/**
 * The shipped program for the tests that run it as a process: scripts/build.ts's bundle, built into
 * a folder laid out as the image's /app (dist/cli beside package.json and node_modules), and started
 * as the image starts it, with the Node flags of its first line.
 */
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Metafile } from "esbuild";
import { bundle } from "../../scripts/build.js";

const REPO_ROOT = join(import.meta.dirname, "..", "..");

/** A bundle built for a run: its `main.js`, its folder, esbuild's metafile, and the folder's removal. */
export interface BuiltProgram {
  readonly main: string;
  readonly app: string;
  readonly meta: Metafile;
  remove(): void;
}

/** Bundles the program into a fresh /app-like folder under the temporary directory. */
export async function buildProgram(): Promise<BuiltProgram> {
  const app = mkdtempSync(join(tmpdir(), "appset-program-"));
  mkdirSync(join(app, "dist", "cli"), { recursive: true });
  copyFileSync(join(REPO_ROOT, "package.json"), join(app, "package.json"));
  symlinkSync(join(REPO_ROOT, "node_modules"), join(app, "node_modules"));
  const meta = await bundle(join(app, "dist", "cli"));
  return { main: join(app, "dist", "cli", "main.js"), app, meta, remove: () => rmSync(app, { recursive: true, force: true }) };
}

/** The Node flags of a script's `#!/usr/bin/env -S node ...` line, as the image runs it. */
export function nodeFlagsOf(script: string): string[] {
  const first = readFileSync(script, "utf8").split("\n", 1)[0] ?? "";
  const m = /^#!\/usr\/bin\/env(?: -S)? node((?: \S+)*)\s*$/.exec(first);
  if (m === null) throw new Error(`${script} does not start with a "#!/usr/bin/env node" line`);
  return m[1]!.split(" ").filter((f) => f !== "");
}

/** Node's arguments that run `main` (a bundle) as the image does, followed by `args`. */
export function programArgs(main: string, args: readonly string[]): string[] {
  return [...nodeFlagsOf(main), main, ...args];
}
