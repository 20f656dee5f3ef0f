/**
 * GitHub App authentication: an RS256 JWT signed with the App's private key (node:crypto) is
 * exchanged for an installation access token (`POST /app/installations/{id}/access_tokens`); when
 * the installation id is not configured it is looked up for the organisation
 * (`GET /orgs/{org}/installation`). Tokens are reused until a minute before they expire, and no
 * longer than the caller's `maxAgeMs` (a Git repository's: `ARGOCD_GITHUB_APP_CREDS_EXPIRATION_DURATION`).
 */
import { createSign } from "node:crypto";
import { getJson, postJson, seg, str, type ApiTarget } from "../api.js";

/** The fields of a GitHub App repo-creds Secret. */
export interface GithubAppCredentials {
  readonly appId: string;
  readonly installationId?: string;
  readonly privateKey: string;
  /** `githubAppEnterpriseBaseUrl`, when the App lives on GitHub Enterprise. */
  readonly enterpriseBaseUrl?: string;
}

/** Keys of Argo CD's GitHub App repo-creds Secret. */
export const GithubAppKey = {
  AppId: "githubAppID",
  InstallationId: "githubAppInstallationID",
  PrivateKey: "githubAppPrivateKey",
  EnterpriseBaseUrl: "githubAppEnterpriseBaseUrl",
} as const;

function b64url(data: string | Buffer): string {
  return Buffer.from(data).toString("base64url");
}

/** The App's JWT: issued a minute in the past (clock drift), valid for nine minutes. */
export function githubAppJwt(appId: string, privateKeyPem: string, nowMs: number): string {
  const iat = Math.floor(nowMs / 1000) - 60;
  const head = b64url(JSON.stringify({ alg: "RS256", typ: "JWT" }));
  const body = b64url(JSON.stringify({ iat, exp: iat + 600, iss: /^\d+$/.test(appId) ? Number(appId) : appId }));
  const signature = createSign("RSA-SHA256").update(`${head}.${body}`).sign(privateKeyPem);
  return `${head}.${body}.${b64url(signature)}`;
}

/**
 * An installation token for `org` (cached in the client's derived cache, for at most `maxAgeMs`
 * after it was fetched; default: until near its expiry). `t` carries the API root, the route and
 * no credentials; the JWT is added here.
 */
export async function githubAppToken(
  t: ApiTarget,
  creds: GithubAppCredentials,
  org: string,
  maxAgeMs = Number.POSITIVE_INFINITY,
): Promise<string> {
  const now = t.http.clock.now();
  const key = `github-app ${t.baseUrl} ${creds.appId} ${creds.installationId ?? `org:${org}`}`;
  const hit = t.http.derived.get<{ token: string; expiresAtMs: number }>(key, "", now, maxAgeMs);
  if (hit !== undefined && hit.expiresAtMs - 60_000 > now) return hit.token;
  const jwt: ApiTarget = {
    ...t,
    headers: {
      ...t.headers,
      Authorization: `Bearer ${githubAppJwt(creds.appId, creds.privateKey, now)}`,
      Accept: "application/vnd.github+json",
    },
  };
  let installationId = creds.installationId ?? "";
  if (installationId === "") {
    installationId = str(await getJson(jwt, `orgs/${seg(org)}/installation`, "/orgs/{org}/installation"), "id");
    if (installationId === "") throw new Error(`no GitHub App installation found for ${org}`);
  }
  const res = await postJson(jwt, `app/installations/${seg(installationId)}/access_tokens`, {}, "/app/installations/{id}/access_tokens");
  const token = str(res, "token");
  if (token === "") throw new Error("GitHub App token exchange returned no token");
  const expires = Date.parse(str(res, "expires_at"));
  t.http.derived.set(key, "", now, { token, expiresAtMs: Number.isNaN(expires) ? now + 50 * 60_000 : expires });
  return token;
}
