/**
 * Runs and checks the shell commands of documentation examples. `appset ...` (and
 * `npx tsx src/cli/main.ts ...`) runs in-process through the real dispatcher of src/cli/run.ts, in
 * the page's scratch directory; any other command runs with `sh -e` there, as a reader's shell would.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parseConfig } from "../../../src/config/index.js";
import { run } from "../../../src/cli/run.js";
import type { DocCommand } from "../../unit/docs/shell.js";
import { REPO_ROOT } from "../../unit/deploy/kustomize.js";

/** What a command printed and how it exited. */
export interface CommandResult {
  readonly command: string;
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** The `appset` arguments of a command, or undefined when it is not an `appset` command. */
export function appsetArgs(words: readonly string[]): string[] | undefined {
  if (words[0] === "appset") return words.slice(1);
  if (words[0] === "npx" && words[1] === "tsx" && words[2] === "src/cli/main.ts") return words.slice(3);
  return undefined;
}

/** The environment of shell commands: the caller's, with a fixed Git identity. */
function shellEnv(): NodeJS.ProcessEnv {
  const identity = {
    GIT_AUTHOR_NAME: "docs",
    GIT_AUTHOR_EMAIL: "docs@example.com",
    GIT_COMMITTER_NAME: "docs",
    GIT_COMMITTER_EMAIL: "docs@example.com",
  };
  return { ...process.env, ...identity };
}

/** Runs `appset ARGS` in-process with `cwd` as the working directory. */
export async function runAppset(args: readonly string[], cwd: string): Promise<CommandResult> {
  const [sub] = args;
  const long = sub === "controller" || sub === "sync-engine";
  if (long && !args.includes("-h") && !args.includes("--help")) {
    throw new Error(`"appset ${args.join(" ")}" would start a long-running process: mark the block "check", or ask for --help`);
  }
  let stdout = "";
  let stderr = "";
  const before = { dir: process.cwd(), tmp: process.env["TMPDIR"] };
  // The command's temporary files (the Git cache) go to the scratch directory and leave with it.
  const tmp = join(cwd, ".tmp");
  mkdirSync(tmp, { recursive: true });
  process.chdir(cwd);
  process.env["TMPDIR"] = tmp;
  try {
    const code = await run(
      args,
      (s) => (stdout += s),
      (s) => (stderr += s),
    );
    return { command: `appset ${args.join(" ")}`, code, stdout, stderr };
  } finally {
    process.chdir(before.dir);
    if (before.tmp === undefined) delete process.env["TMPDIR"];
    else process.env["TMPDIR"] = before.tmp;
  }
}

/** Runs one command as written: `appset` in-process, anything else through `sh -e` in `cwd`. */
export async function runCommand(cmd: DocCommand, cwd: string): Promise<CommandResult> {
  const args = appsetArgs(cmd.words);
  if (args !== undefined) return runAppset(args, cwd);
  const res = spawnSync("sh", ["-ec", cmd.text], { cwd, env: shellEnv(), encoding: "utf8", timeout: 60_000 });
  return { command: cmd.text, code: res.status ?? 1, stdout: res.stdout, stderr: res.stderr };
}

function packageScripts(): Record<string, string> {
  const pkg = JSON.parse(readFileSync(join(REPO_ROOT, "package.json"), "utf8")) as { scripts?: Record<string, string> };
  return pkg.scripts ?? {};
}

/**
 * Checks a command a test cannot run here: `npm run X` / `npm test` name a script of package.json;
 * `appset controller|sync-engine FLAGS` parse without error or warning; `appset generate|rollout
 * ...` is accepted by the command's flag parser (any exit code but the usage error, 2).
 */
export async function checkCommand(cmd: DocCommand, cwd: string): Promise<void> {
  const w = cmd.words;
  if (w[0] === "npm") {
    const script = w[1] === "run" ? w[2] : w[1];
    if (script === undefined || !(script in packageScripts()))
      throw new Error(`${cmd.text}: package.json has no script "${String(script)}"`);
    return;
  }
  const args = appsetArgs(w);
  if (args === undefined)
    throw new Error(`${cmd.text}: no way to check this command here; run it in an example or name the test that runs it ("tested-by")`);
  if (args[0] === "controller" || args[0] === "sync-engine") {
    const res = parseConfig(args.slice(1), {});
    if (res.kind === "error") throw new Error(`${cmd.text}: ${res.message}`);
    if (res.kind === "config" && res.warnings.length > 0) throw new Error(`${cmd.text}: ${res.warnings.join("; ")}`);
    return;
  }
  const res = await runAppset(args, cwd);
  if (res.code === 2) throw new Error(`${cmd.text}: usage error: ${res.stderr}`);
}
