/**
 * Runs the `git` program: `execFile` with an argument vector (never a shell), a scrubbed
 * environment (no prompts, no user or system config), and errors that carry git's stderr with any
 * credential in it masked.
 */
import { execFile } from "node:child_process";
import { AppSetError } from "../errors.js";

/** Reason carried by every failed git invocation. */
export const GIT_ERROR_REASON = "GitError";

/** A git command failed (non-zero exit, spawn failure, or abort). */
export class GitCommandError extends AppSetError {
  constructor(
    message: string,
    readonly exitCode: number | undefined,
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
  readonly signal?: AbortSignal;
  /** Strings masked in error messages (passwords, tokens). */
  readonly secrets?: readonly string[];
  /** Largest stdout accepted, in bytes (default 256 MiB). */
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

/**
 * Runs `git <args>` and resolves with its stdout. Rejects with {@link GitCommandError} whose
 * message is `git <verb>: <stderr>` (secrets masked).
 */
export function runGit(base: Readonly<Record<string, string>>, args: readonly string[], opts: GitExecOptions = {}): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      "git",
      [...args],
      {
        cwd: opts.cwd,
        env: { ...base, ...opts.env },
        encoding: "buffer",
        maxBuffer: opts.maxBuffer ?? 256 * 1024 * 1024,
        ...(opts.signal ? { signal: opts.signal } : {}),
        windowsHide: true,
      },
      (err, stdout, stderr) => {
        if (err === null) {
          resolve(stdout);
          return;
        }
        const detail = stderr.toString("utf8").trim() || err.message;
        const code = typeof err.code === "number" ? err.code : undefined;
        reject(new GitCommandError(`git ${gitVerb(args)}: ${redact(detail, opts.secrets)}`, code));
      },
    );
    child.stdin?.on("error", () => undefined);
    child.stdin?.end(opts.input ?? "");
  });
}
