/**
 * Runs the `git` program: an argument vector (never a shell), a scrubbed environment (no prompts,
 * no user or system config), errors that carry git's stderr with any credential in it masked, and
 * a time limit. Each command runs in a process group of its own (`git` spawned detached), so a
 * time limit or an abort kills `git` together with what it started (`ssh`, `git-remote-http`),
 * not `git` alone; the promise settles once every pipe of the group has closed.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { SystemClock, type Clock } from "../clock/index.js";
import { AppSetError } from "../errors.js";

/** Reason carried by every failed git invocation, a timeout or an abort included. */
export const GIT_ERROR_REASON = "GitError";

/**
 * How a git command failed: a non-zero exit, its time limit, the caller's signal, no process
 * started, its output past the limit, or its cache repository's lock (see `lock.ts`).
 */
export type GitFailure = "exit" | "timeout" | "aborted" | "spawn" | "output" | "lock";

/** A git command failed (non-zero exit, spawn failure, time limit, abort, output too large). */
export class GitCommandError extends AppSetError {
  constructor(
    message: string,
    readonly exitCode: number | undefined,
    readonly failure: GitFailure = "exit",
  ) {
    super(GIT_ERROR_REASON, message);
  }
}

/** Options of one git invocation. */
export interface GitExecOptions {
  /** Working directory (a bare cache repository, usually). */
  readonly cwd?: string;
  /** Extra environment (credentials); merged over the scrubbed base environment. */
  readonly env?: Readonly<Record<string, string>>;
  /** Aborting it kills the command's process group; the promise rejects ("aborted"). */
  readonly signal?: AbortSignal;
  /**
   * The command's time limit in ms; at the deadline its process group is killed and the promise
   * rejects ("timed out after …"). Unset or 0: no limit.
   */
  readonly timeoutMs?: number;
  /** The clock the time limit is measured on (default: the system clock). */
  readonly clock?: Clock;
  /** Strings masked in error messages (passwords, tokens). */
  readonly secrets?: readonly string[];
  /** Largest stdout accepted, in bytes (default 256 MiB); past it the command is killed. */
  readonly maxBuffer?: number;
  /** Written to the command's stdin, which is then closed. */
  readonly input?: string;
}

/** The environment every git command runs with: never prompt, never read the user's config. */
export function baseGitEnv(inherited: Readonly<Record<string, string | undefined>>): Record<string, string> {
  const keep = ["PATH", "HOME", "TMPDIR", "LANG", "SSL_CERT_FILE", "SSL_CERT_DIR", "HTTPS_PROXY", "HTTP_PROXY", "NO_PROXY"];
  const env: Record<string, string> = {};
  for (const k of keep) {
    const v = inherited[k] ?? inherited[k.toLowerCase()];
    if (v !== undefined) env[k] = v;
  }
  return {
    ...env,
    GIT_TERMINAL_PROMPT: "0",
    GIT_CONFIG_NOSYSTEM: "1",
    // A file that never exists: git reads no user configuration, and a stray `git config --global`
    // fails instead of replacing a shared file (such as /dev/null) with its own.
    GIT_CONFIG_GLOBAL: "/nonexistent/appset/gitconfig",
    GIT_ASKPASS: "",
    SSH_ASKPASS: "",
    LC_ALL: "C",
  };
}

/** Masks every secret in `text`. */
export function redact(text: string, secrets: readonly string[] = []): string {
  let out = text;
  for (const s of secrets) if (s.length > 0) out = out.split(s).join("***");
  return out.replace(/(https?:\/\/)[^/@\s]+@/g, "$1***@");
}

/** The git subcommand of an argument vector, past leading `-c key=value` options. */
export function gitVerb(args: readonly string[]): string {
  let i = 0;
  while (i < args.length && args[i]!.startsWith("-")) i += args[i] === "-c" || args[i] === "-C" ? 2 : 1;
  return args[i] ?? "";
}

/** A duration as the time-limit message shows it: whole seconds as `60s`, else `500ms`. */
export function formatLimit(ms: number): string {
  return ms % 1000 === 0 ? `${String(ms / 1000)}s` : `${String(ms)}ms`;
}

/** The error of a command the caller's signal stopped. */
export function abortedError(what: string): GitCommandError {
  return new GitCommandError(`${what}: aborted`, undefined, "aborted");
}

/** The error of a command its time limit stopped. */
export function timeoutError(what: string, timeoutMs: number): GitCommandError {
  return new GitCommandError(`${what}: timed out after ${formatLimit(timeoutMs)}`, undefined, "timeout");
}

const STDERR_KEPT = 64 * 1024;

/**
 * Runs `git <args>` and resolves with its stdout. Rejects with {@link GitCommandError}: on a
 * non-zero exit `git <verb>: <stderr>` (secrets masked); at the time limit `git <verb>: timed out
 * after 60s`; on abort `git <verb>: aborted`, the whole process group killed in the last two cases.
 */
export function runGit(base: Readonly<Record<string, string>>, args: readonly string[], opts: GitExecOptions = {}): Promise<Buffer> {
  const what = `git ${gitVerb(args)}`;
  if (opts.signal?.aborted === true) return Promise.reject(abortedError(what));
  const child = spawn("git", [...args], {
    cwd: opts.cwd,
    env: { ...base, ...opts.env },
    detached: true,
    stdio: ["pipe", "pipe", "pipe"],
    windowsHide: true,
  });
  return supervise(child, what, opts);
}

/** Collects a child's output and settles once its pipes have closed, enforcing the limits. */
function supervise(child: ChildProcess, what: string, opts: GitExecOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let outBytes = 0;
    let errBytes = 0;
    let stopped: GitCommandError | undefined;
    let spawnError: Error | undefined;
    const maxBuffer = opts.maxBuffer ?? 256 * 1024 * 1024;
    const clock = opts.clock ?? new SystemClock();
    const release = (): void => {
      for (const s of [child.stdout, child.stderr]) s?.destroy();
    };
    const stop = (e: GitCommandError): void => {
      if (stopped !== undefined) return;
      stopped = e;
      killGroup(child);
      if (child.exitCode !== null || child.signalCode !== null) release();
    };
    const onAbort = (): void => stop(abortedError(what));
    const timer =
      opts.timeoutMs !== undefined && opts.timeoutMs > 0
        ? clock.setTimeout(() => stop(timeoutError(what, opts.timeoutMs!)), opts.timeoutMs)
        : undefined;
    opts.signal?.addEventListener("abort", onAbort, { once: true });
    child.stdout?.on("data", (chunk: Buffer) => {
      outBytes += chunk.length;
      if (outBytes > maxBuffer) stop(new GitCommandError(`${what}: output larger than ${String(maxBuffer)} bytes`, undefined, "output"));
      else out.push(chunk);
    });
    child.stderr?.on("data", (chunk: Buffer) => {
      if (errBytes < STDERR_KEPT) err.push(chunk);
      errBytes += chunk.length;
    });
    child.on("error", (e) => {
      spawnError = e;
    });
    // Once git itself has gone after a kill, a straggler that left the group must not hold the pipes open.
    child.on("exit", () => {
      if (stopped !== undefined) release();
    });
    child.on("close", (code) => {
      if (timer !== undefined) clock.clearTimeout(timer);
      opts.signal?.removeEventListener("abort", onAbort);
      if (stopped !== undefined) reject(stopped);
      else if (spawnError !== undefined) reject(new GitCommandError(`${what}: ${spawnError.message}`, undefined, "spawn"));
      else if (code === 0) resolve(Buffer.concat(out));
      else reject(exitError(what, code, Buffer.concat(err).toString("utf8"), opts.secrets));
    });
    child.stdin?.on("error", () => undefined);
    child.stdin?.end(opts.input ?? "");
  });
}

function exitError(what: string, code: number | null, stderr: string, secrets: readonly string[] | undefined): GitCommandError {
  const detail = stderr.trim() || `exited with ${code === null ? "a signal" : `code ${String(code)}`}`;
  return new GitCommandError(`${what}: ${redact(detail, secrets)}`, code ?? undefined);
}

/** Kills the child's whole process group (its pid: it was spawned detached). */
function killGroup(child: ChildProcess): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, "SIGKILL");
  } catch {
    // The group is gone already (ESRCH): nothing is left to kill.
  }
}
