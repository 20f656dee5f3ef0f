/**
 * Repository credentials, Argo CD style: a Secret labelled `argocd.argoproj.io/secret-type:
 * repository` whose `url` names the same repository (Argo CD's rule, `url.ts`), or else the
 * `repo-creds` Secret whose normalised `url` is the longest prefix of it. Keys:
 * `username`/`password` (HTTPS basic; a token goes in `password`), `bearerToken` (HTTPS bearer),
 * `forceHttpBasicAuth` ("true": send basic auth with the first request instead of on the server's
 * challenge), `sshPrivateKey`, `tlsClientCertData`/`tlsClientCertKey` (an HTTPS client
 * certificate, PEM), `githubAppID`/`githubAppInstallationID`/`githubAppPrivateKey`/
 * `githubAppEnterpriseBaseUrl` (a GitHub App whose installation token authenticates HTTPS),
 * `proxy`/`noProxy` (the HTTP(S) proxy of this repository), `insecure` ("true": skip TLS / host
 * key checks; the older `insecureIgnoreHostKey` likewise, as Argo CD's `IsInsecure` reads both),
 * `project` (a `repository` Secret scoped to one AppProject), `enableOCI` (a `type: helm`
 * repository that is an OCI registry, which the sync engine refuses), `insecureOCIForceHttp` (an
 * OCI registry over plain HTTP). The same lookup serves
 * `type: helm` repositories (chart sources), as Argo CD matches both kinds by URL alike.
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
  /** Send basic auth with every request (`forceHttpBasicAuth`), not only on a 401 challenge. */
  readonly forceHttpBasicAuth?: boolean;
  /** The HTTPS client certificate and its key, PEM (`tlsClientCertData`, `tlsClientCertKey`). */
  readonly tlsClientCertData?: string;
  readonly tlsClientCertKey?: string;
  /** The proxy URL of this repository (`proxy`), and the hosts that bypass it (`noProxy`). */
  readonly proxy?: string;
  readonly noProxy?: string;
  /** A GitHub App whose installation token authenticates HTTPS (as user `x-access-token`). */
  readonly githubApp?: GitHubAppCredentials;
  /** `enableOCI: "true"` (a `type: helm` repository that is an OCI registry); git ignores it. */
  readonly enableOCI?: boolean;
  /** `insecureOCIForceHttp: "true"`: an OCI registry spoken to over plain HTTP; git ignores it. */
  readonly insecureOCIForceHttp?: boolean;
}

/** The GitHub App keys of a repository or repo-creds Secret. */
export interface GitHubAppCredentials {
  readonly appId: string;
  /** Unset: the installation is looked up for the repository's organisation. */
  readonly installationId?: string;
  readonly privateKey: string;
  /** `githubAppEnterpriseBaseUrl` (GitHub Enterprise's API root); unset: api.github.com. */
  readonly enterpriseBaseUrl?: string;
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
  const out: Record<string, unknown> = {};
  for (const [key, field] of TEXT_KEYS) {
    const v = get(key);
    if (v !== undefined) out[field] = v;
  }
  // Argo CD's `IsInsecure`: the older `insecureIgnoreHostKey` skips the same checks as `insecure`.
  if (get("insecure") === "true" || get("insecureIgnoreHostKey") === "true") out["insecure"] = true;
  if (get("forceHttpBasicAuth") === "true") out["forceHttpBasicAuth"] = true;
  if (get("enableOCI") === "true") out["enableOCI"] = true;
  if (get("insecureOCIForceHttp") === "true") out["insecureOCIForceHttp"] = true;
  const app = githubAppOf(get);
  if (app !== undefined) out["githubApp"] = app;
  return out;
}

/** Secret keys copied as they are, and the field each fills. */
const TEXT_KEYS: readonly (readonly [string, keyof RepoCredentials])[] = [
  ["username", "username"],
  ["password", "password"],
  ["bearerToken", "bearerToken"],
  ["sshPrivateKey", "sshPrivateKey"],
  ["tlsClientCertData", "tlsClientCertData"],
  ["tlsClientCertKey", "tlsClientCertKey"],
  ["proxy", "proxy"],
  ["noProxy", "noProxy"],
];

function githubAppOf(get: (k: string) => string | undefined): GitHubAppCredentials | undefined {
  const privateKey = get("githubAppPrivateKey");
  if (privateKey === undefined) return undefined;
  const installationId = get("githubAppInstallationID");
  const enterpriseBaseUrl = get("githubAppEnterpriseBaseUrl");
  return {
    appId: get("githubAppID") ?? "",
    privateKey,
    ...(installationId === undefined ? {} : { installationId }),
    ...(enterpriseBaseUrl === undefined ? {} : { enterpriseBaseUrl }),
  };
}

/** Whether the credentials authenticate at all (Argo CD's `HasCredentials`), beyond flags. */
function hasCredentials(c: RepoCredentials): boolean {
  return (
    c.username !== undefined ||
    c.password !== undefined ||
    c.bearerToken !== undefined ||
    c.sshPrivateKey !== undefined ||
    c.tlsClientCertData !== undefined ||
    c.githubApp !== undefined
  );
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
    const template = templates.find((t) => t.prefix !== "" && underPrefix(normalized, t.prefix))?.creds;
    if (template === undefined) return Promise.resolve(repo);
    return Promise.resolve(repo === undefined ? template : { ...template, ...repo });
  };
}

/**
 * Whether a normalised repository URL falls under a `repo-creds` URL: equal to it, or below it at
 * a path boundary (`https://h/org` covers `https://h/org/app`, not `https://h/org-evil/app`); a
 * prefix that names a host alone also covers its ports (`http://h` covers `http://h:8080/r`, not
 * `http://h.evil/r`). Argo CD compares plain string prefixes (docs/security.md#credentials).
 */
export function underPrefix(url: string, prefix: string): boolean {
  if (!url.startsWith(prefix)) return false;
  if (url.length === prefix.length || prefix.endsWith("/") || prefix.endsWith(":")) return true;
  const next = url[prefix.length];
  if (next === "/") return true;
  return next === ":" && !prefix.replace(/^[a-z][a-z0-9+.-]*:\/\//, "").includes("/");
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

/** The username of HTTPS basic auth when only a password (a token) is given. */
export const TOKEN_USER = "x-access-token";

/**
 * A credential helper answering git's `get` from environment variables: the credentials stay out
 * of every command line, and git only sends them when the server asks (a 401 challenge). It
 * answers only for the repository's own protocol and host (`host:port` as git names it), so a
 * redirect to, or a challenge from, any other server gets nothing.
 */
const CREDENTIAL_HELPER = [
  `!f() { test "$1" = get || exit 0; h=; p=;`,
  `while IFS= read -r l; do case "$l" in host=*) h="\${l#host=}";; protocol=*) p="\${l#protocol=}";; esac; done;`,
  `test "$h" = "$APPSET_GIT_HOST" && test "$p" = "$APPSET_GIT_PROTOCOL" || exit 0;`,
  `printf 'username=%s\\npassword=%s\\n' "$APPSET_GIT_USERNAME" "$APPSET_GIT_PASSWORD"; }; f`,
].join(" ");

/** The protocol and `host[:port]` git's credential protocol names for an HTTP(S) URL; undefined for others. */
export function credentialTarget(url: string): { protocol: string; host: string } | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  const protocol = parsed.protocol.replace(/:$/, "").toLowerCase();
  if (protocol !== "http" && protocol !== "https") return undefined;
  return { protocol, host: parsed.host };
}

interface AuthParts {
  readonly pairs: [string, string][];
  readonly env: Record<string, string>;
  readonly secrets: string[];
}

/** HTTPS authentication: a bearer header, basic auth forced into a header, or the credential helper for `remote` alone. */
function httpAuth(creds: RepoCredentials, remote: string | undefined, out: AuthParts): void {
  if (creds.bearerToken !== undefined) {
    out.pairs.push(["http.extraHeader", `Authorization: Bearer ${creds.bearerToken}`]);
    out.secrets.push(creds.bearerToken);
    return;
  }
  if (creds.password === undefined && creds.username === undefined) return;
  const username = creds.username ?? TOKEN_USER;
  const password = creds.password ?? "";
  out.secrets.push(password);
  if (creds.forceHttpBasicAuth === true) {
    const basic = Buffer.from(`${username}:${password}`, "utf8").toString("base64");
    out.pairs.push(["http.extraHeader", `Authorization: Basic ${basic}`]);
    out.secrets.push(basic);
    return;
  }
  const target = remote === undefined ? undefined : credentialTarget(remote);
  if (target === undefined) return;
  out.pairs.push(["credential.helper", ""], ["credential.helper", CREDENTIAL_HELPER]);
  out.env["APPSET_GIT_HOST"] = target.host;
  out.env["APPSET_GIT_PROTOCOL"] = target.protocol;
  out.env["APPSET_GIT_USERNAME"] = username;
  out.env["APPSET_GIT_PASSWORD"] = password;
}

/** The repository's proxy (`proxy`, `noProxy`), over the process's proxy variables. */
function proxyEnv(creds: RepoCredentials, env: Record<string, string>): void {
  if (creds.proxy !== undefined) {
    for (const k of ["http_proxy", "https_proxy", "HTTPS_PROXY", "HTTP_PROXY"]) env[k] = creds.proxy;
  }
  if (creds.noProxy !== undefined) for (const k of ["no_proxy", "NO_PROXY"]) env[k] = creds.noProxy;
}

/** Host settings of every git command (not per repository). */
export interface GitHostOptions {
  /**
   * The SSH known_hosts file to check host keys against (Argo CD's `argocd-ssh-known-hosts-cm`);
   * unset: ssh's own default files. Either way an unknown host key is refused unless the
   * credentials are `insecure`.
   */
  readonly knownHostsFile?: string;
  /**
   * The CA bundle that verifies this repository's HTTPS server (the file named after its host in
   * Argo CD's `argocd-tls-certs-cm` directory); unset: the system's CAs. Ignored when `insecure`.
   */
  readonly caFile?: string;
  /** The URL of the command's remote: the only server the credential helper answers. */
  readonly remote?: string;
}

function sshHostOptions(creds: RepoCredentials, host: GitHostOptions): string {
  if (creds.insecure === true) return " -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null";
  const file = host.knownHostsFile === undefined ? "" : ` -o UserKnownHostsFile=${shellQuote(host.knownHostsFile)}`;
  return ` -o StrictHostKeyChecking=yes${file}`;
}

/** Writes a secret file (0600) into the command's private directory, made on first use. */
type SecretFiles = (name: string, content: string) => Promise<string>;

/** TLS settings: verification off, a CA bundle, a client certificate. */
async function tlsAuth(creds: RepoCredentials | undefined, host: GitHostOptions, out: AuthParts, file: SecretFiles): Promise<void> {
  if (creds?.insecure === true) out.pairs.push(["http.sslVerify", "false"]);
  else if (host.caFile !== undefined) out.env["GIT_SSL_CAINFO"] = host.caFile;
  if (creds?.tlsClientCertData !== undefined && creds.tlsClientCertKey !== undefined) {
    out.env["GIT_SSL_CERT"] = await file("client.crt", creds.tlsClientCertData);
    out.env["GIT_SSL_KEY"] = await file("client.key", creds.tlsClientCertKey);
  }
}

function withNewline(text: string): string {
  return text.endsWith("\n") ? text : `${text}\n`;
}

/**
 * Prepares the environment for a git command against a repository with `creds`. HTTPS gets its
 * credentials through GIT_CONFIG_* variables and the environment (see {@link httpAuth}), its CA,
 * client certificate and proxy through git's variables; SSH gets GIT_SSH_COMMAND with a temporary
 * key file and strict host key checking unless `insecure`. Files are removed by `cleanup`.
 */
export async function prepareGitAuth(creds: RepoCredentials | undefined, host: GitHostOptions = {}): Promise<GitAuth> {
  const out: AuthParts = { pairs: [], env: {}, secrets: [] };
  let dir: string | undefined;
  const file: SecretFiles = async (name, content) => {
    dir ??= await mkdtemp(join(tmpdir(), "appset-git-key-"));
    const path = join(dir, name);
    await writeFile(path, withNewline(content), { mode: 0o600 });
    return path;
  };
  try {
    if (creds !== undefined) {
      httpAuth(creds, host.remote, out);
      proxyEnv(creds, out.env);
    }
    const key = creds?.sshPrivateKey === undefined ? "" : `-i ${shellQuote(await file("id", creds.sshPrivateKey))} -o IdentitiesOnly=yes `;
    out.env["GIT_SSH_COMMAND"] = `ssh ${key}-o BatchMode=yes${sshHostOptions(creds ?? {}, host)}`;
    await tlsAuth(creds, host, out, file);
  } catch (err) {
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
    throw err;
  }
  const made = dir;
  return {
    env: { ...out.env, ...(out.pairs.length > 0 ? configEnv(out.pairs) : {}) },
    secrets: out.secrets.filter((s) => s !== ""),
    cleanup: async () => {
      if (made !== undefined) await rm(made, { recursive: true, force: true });
    },
  };
}
