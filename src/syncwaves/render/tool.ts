/**
 * Runs a rendering program (`helm`, `kustomize`) under a time limit and reports a failure as
 * Argo CD's repo server does: "`<command line>` failed exit status N: <stderr>", the command line
 * quoted where an argument holds spaces. The output is its stdout.
 *
 * I/O boundary: the child process.
 */
import { execFile } from "node:child_process";
import { AppSetError } from "../../errors.js";
import { MANIFEST_ERROR } from "../manifests.js";

/** How one program runs. */
export interface ToolRun {
  readonly program: string;
  readonly args: readonly string[];
  readonly cwd: string;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly timeoutMs: number;
  readonly signal?: AbortSignal;
  /** Masks secrets of the command line and output in the error message (default none). */
  readonly redact?: (text: string) => string;
}

/** The default limit of one program run (Argo CD's exec timeout is 90 s). */
export const TOOL_TIMEOUT_MS = 90_000;

/** Output beyond this fails the run. */
const MAX_OUTPUT = 256 * 1024 * 1024;

/** The command line as Argo CD logs it: arguments with spaces quoted Go-style, empty ones as `""`. */
export function commandLine(program: string, args: readonly string[]): string {
  return [program, ...args].map((a) => (a === "" ? '""' : /\s/.test(a) ? JSON.stringify(a) : a)).join(" ");
}

/** Runs the program; rejects with a ManifestError whose message names the command and its stderr. */
export function runTool(run: ToolRun): Promise<string> {
  const line = commandLine(run.program, run.args);
  return new Promise((resolve, reject) => {
    execFile(
      run.program,
      [...run.args],
      {
        cwd: run.cwd,
        env: run.env,
        timeout: run.timeoutMs,
        killSignal: "SIGKILL",
        maxBuffer: MAX_OUTPUT,
        encoding: "utf8",
        ...(run.signal ? { signal: run.signal } : {}),
      },
      (err, stdout, stderr) => {
        if (err === null) return resolve(stdout);
        const e = err as NodeJS.ErrnoException & { killed?: boolean; code?: number | string };
        let cause: string;
        if (e.name === "AbortError") cause = "aborted";
        else if (e.killed === true) cause = `timeout after ${String(run.timeoutMs / 1000)}s`;
        else if (typeof e.code === "number") cause = `exit status ${String(e.code)}`;
        else cause = e.message;
        const detail = stderr.trim();
        const message = `\`${line}\` failed ${cause}${detail === "" ? "" : `: ${detail}`}`;
        reject(new AppSetError(MANIFEST_ERROR, run.redact ? run.redact(message) : message));
      },
    );
  });
}
