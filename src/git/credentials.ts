/**
 * Repository credentials, Argo CD style: a Secret labelled `argocd.argoproj.io/secret-type:
 * repository` whose `url` names the same repository (Argo CD's rule, `url.ts`), or else the
 * `repo-creds` Secret whose normalised `url` is the longest prefix of it. Keys:
 * `username`/`password` (HTTPS basic; a token goes in `password`), `bearerToken` (HTTPS bearer),
 * `sshPrivateKey`, `insecure` ("true": skip TLS / host key checks),
 * `project` (a `repository` Secret scoped to one AppProject).
 *
 * Project scoping follows Argo CD's repository Secrets: a reader acting for project P may use the
 * Secrets scoped to P and the unscoped ones, a scoped one winning for the same URL; a reader with
 * no project (a templated project) only the unscoped ones. As in Argo CD, `repo-creds` templates
 * are global: their `project` key is not consulted.
 *
 * Credentials reach git through the environment only (GIT_CONFIG_* and GIT_SSH_COMMAND with a
 * temporary 0600 key file): never on a command line, where `ps` and logs would show them.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isClusterSecret, Label, secretValue, SecretType, type Secret } from "../api/index.js";
import { normalizeGitURL, sameGitURL } from "./url.js";

/** What authenticates git against one repository. */
export interface RepoCredentials {
  readonly username?: string;
  readonly password?: string;
  readonly bearerToken?: string;
  readonly sshPrivateKey?: string;
  /** Skip TLS verification (HTTPS) or host key checking (SSH). */
  readonly insecure?: boolean;
}

/** On whose behalf a repository is read. */
export interface RepoAccess {
  /**
   * The AppProject whose scoped credentials are eligible; undefined (a templated or unknown
   * project) means only unscoped credentials.
   */
  readonly project?: string;
}

/**
 * Finds the credentials of a repository URL for a project (undefined: only unscoped credentials);
 * undefined means anonymous access.
 */
export type CredentialsLookup = (repoURL: string, project?: string) => Promise<RepoCredentials | undefined>;

/** Anonymous access for every repository. */
export const noCredentials: CredentialsLookup = () => Promise.resolve(undefined);

function credsOf(secret: Secret): RepoCredentials {
  const get = (k: string): string | undefined => {
    const v = secretValue(secret, k);
    return v === undefined || v === "" ? undefined : v;
  };
  const out: { -readonly [K in keyof RepoCredentials]: RepoCredentials[K] } = {};
  const username = get("username");
  const password = get("password");
  const bearerToken = get("bearerToken");
  const sshPrivateKey = get("sshPrivateKey");
  if (username !== undefined) out.username = username;
  if (password !== undefined) out.password = password;
  if (bearerToken !== undefined) out.bearerToken = bearerToken;
  if (sshPrivateKey !== undefined) out.sshPrivateKey = sshPrivateKey;
  if (get("insecure") === "true") out.insecure = true;
  return out;
}

/** Whether the credentials authenticate at all (Argo CD's `HasCredentials`), beyond flags. */
function hasCredentials(c: RepoCredentials): boolean {
  return c.username !== undefined || c.password !== undefined || c.bearerToken !== undefined || c.sshPrivateKey !== undefined;
}

interface RepoSecret {
  readonly url: string;
  readonly project: string;
  readonly creds: RepoCredentials;
}

/**
 * The `repository` Secret for a URL as Argo CD picks it: the one scoped to `project` wins, else an
 * unscoped one; Secrets scoped to another project never apply.
 */
function pickRepository(repos: readonly RepoSecret[], url: string, project: string | undefined): RepoCredentials | undefined {
  const same = repos.filter((r) => sameGitURL(r.url, url));
  const scoped = project === undefined || project === "" ? undefined : same.find((r) => r.project === project);
  return (scoped ?? same.find((r) => r.project === ""))?.creds;
}

/**
 * Builds a lookup over Argo CD repository Secrets: the matching `repository` Secret eligible for
 * the project (see the module comment); when there is none, or it carries no credentials, the
 * `repo-creds` template with the longest URL prefix supplies them. Other Secrets are ignored.
 */
export function credentialsFromSecrets(secrets: readonly Secret[]): CredentialsLookup {
  const repos: RepoSecret[] = [];
  const templates: { prefix: string; creds: RepoCredentials }[] = [];
  for (const s of secrets) {
    if (isClusterSecret(s)) continue;
    const type = s.metadata.labels?.[Label.SecretType];
    const url = secretValue(s, "url");
    if (url === undefined) continue;
    if (type === SecretType.Repository) repos.push({ url, project: secretValue(s, "project") ?? "", creds: credsOf(s) });
    if (type === SecretType.RepoCreds) templates.push({ prefix: normalizeGitURL(url), creds: credsOf(s) });
  }
  templates.sort((a, b) => b.prefix.length - a.prefix.length);
  return (repoURL, project) => {
    const repo = pickRepository(repos, repoURL, project);
    if (repo !== undefined && hasCredentials(repo)) return Promise.resolve(repo);
    const normalized = normalizeGitURL(repoURL);
    const template = templates.find((t) => t.prefix !== "" && normalized.startsWith(t.prefix))?.creds;
    if (template === undefined) return Promise.resolve(repo);
    return Promise.resolve(repo === undefined ? template : { ...template, ...repo });
  };
}

/** Environment that authenticates one git command, and how to clean up after it. */
export interface GitAuth {
  readonly env: Record<string, string>;
  /** Values to mask in error messages. */
  readonly secrets: string[];
  cleanup(): Promise<void>;
}

function configEnv(pairs: readonly (readonly [string, string])[]): Record<string, string> {
  const env: Record<string, string> = { GIT_CONFIG_COUNT: String(pairs.length) };
  pairs.forEach(([k, v], i) => {
    env[`GIT_CONFIG_KEY_${String(i)}`] = k;
    env[`GIT_CONFIG_VALUE_${String(i)}`] = v;
  });
  return env;
}

function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

function httpHeader(creds: RepoCredentials): string | undefined {
  if (creds.bearerToken !== undefined) return `Authorization: Bearer ${creds.bearerToken}`;
  if (creds.password === undefined && creds.username === undefined) return undefined;
  const basic = Buffer.from(`${creds.username ?? "x-access-token"}:${creds.password ?? ""}`, "utf8").toString("base64");
  return `Authorization: Basic ${basic}`;
}

/** Host settings of every git command (not per repository). */
export interface GitHostOptions {
  /**
   * The SSH known_hosts file to check host keys against (Argo CD's `argocd-ssh-known-hosts-cm`);
   * unset: ssh's own default files. Either way an unknown host key is refused unless the
   * credentials are `insecure`.
   */
  readonly knownHostsFile?: string;
}

function sshHostOptions(creds: RepoCredentials, host: GitHostOptions): string {
  if (creds.insecure === true) return " -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null";
  const file = host.knownHostsFile === undefined ? "" : ` -o UserKnownHostsFile=${shellQuote(host.knownHostsFile)}`;
  return ` -o StrictHostKeyChecking=yes${file}`;
}

/**
 * Prepares the environment for a git command against a repository with `creds`. HTTPS gets an
 * `http.extraHeader` through GIT_CONFIG_* variables; SSH gets GIT_SSH_COMMAND with a temporary key
 * file, removed by `cleanup`, and strict host key checking unless `insecure`.
 */
export async function prepareGitAuth(creds: RepoCredentials | undefined, host: GitHostOptions = {}): Promise<GitAuth> {
  const pairs: [string, string][] = [];
  const secrets: string[] = [];
  let keyDir: string | undefined;
  const env: Record<string, string> = {};
  if (creds !== undefined) {
    const header = httpHeader(creds);
    if (header !== undefined) {
      pairs.push(["http.extraHeader", header]);
      secrets.push(header.slice("Authorization: ".length), creds.password ?? "", creds.bearerToken ?? "");
    }
    if (creds.insecure === true) pairs.push(["http.sslVerify", "false"]);
    if (creds.sshPrivateKey !== undefined) {
      keyDir = await mkdtemp(join(tmpdir(), "appset-git-key-"));
      const keyFile = join(keyDir, "id");
      await writeFile(keyFile, creds.sshPrivateKey.endsWith("\n") ? creds.sshPrivateKey : `${creds.sshPrivateKey}\n`, { mode: 0o600 });
      env["GIT_SSH_COMMAND"] = `ssh -i ${shellQuote(keyFile)} -o IdentitiesOnly=yes -o BatchMode=yes${sshHostOptions(creds, host)}`;
    }
  }
  const dir = keyDir;
  return {
    env: { ...env, ...(pairs.length > 0 ? configEnv(pairs) : {}) },
    secrets: secrets.filter((s) => s !== ""),
    cleanup: async () => {
      if (dir !== undefined) await rm(dir, { recursive: true, force: true });
    },
  };
}
