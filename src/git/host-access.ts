/**
 * What a git command needs from the host besides credentials: the known hosts file and the CA
 * bundle of its remote (looked up when the command runs, so mounted ConfigMaps apply at once), and
 * the hint added to a refused host key.
 */
import { access } from "node:fs/promises";
import { join } from "node:path";
import { GitCommandError } from "./exec.js";

/** What to do about a refused SSH host key, appended to ssh's own words. */
export const HOST_KEY_HINT =
  "the SSH host key of the repository server is not among the known hosts: add it to the argocd-ssh-known-hosts-cm ConfigMap " +
  '(mounted at $ARGOCD_SSH_DATA_PATH/ssh_known_hosts), or set insecure: "true" in the repository Secret to skip the check';

export function withHostKeyHint(err: unknown): unknown {
  if (!(err instanceof GitCommandError) || !err.message.includes("Host key verification failed")) return err;
  return new GitCommandError(`${err.message} (${HOST_KEY_HINT})`, err.exitCode, err.failure);
}

/** The file at `path`, if it exists now. */
export async function existing(path: string | undefined): Promise<string | undefined> {
  if (path === undefined) return undefined;
  return access(path).then(
    () => path,
    () => undefined,
  );
}

/** The host of an `https://` URL, without its port: the file name of its CA bundle. */
export function tlsServerName(repoURL: string): string | undefined {
  if (!/^https:\/\//i.test(repoURL)) return undefined;
  try {
    const host = new URL(repoURL).hostname;
    return host.startsWith("[") ? host.slice(1, -1) : host;
  } catch {
    return undefined;
  }
}

/** The CA bundle mounted now for an `https://` URL's host in `tlsCertsDir` (Argo CD's `argocd-tls-certs-cm`), if any. */
export function caBundleFile(tlsCertsDir: string | undefined, url: string): Promise<string | undefined> {
  const server = tlsServerName(url);
  return existing(server === undefined || tlsCertsDir === undefined ? undefined : join(tlsCertsDir, server));
}

/** The remote URL of a `ls-remote`/`fetch` argument vector: the argument after `--`. */
export function remoteOf(args: readonly string[]): string {
  const i = args.indexOf("--");
  return i < 0 ? "" : (args[i + 1] ?? "");
}
