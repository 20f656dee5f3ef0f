/**
 * A provider's view of the HTTP client: one base URL, one set of credentials and TLS settings,
 * the caller's labels and abort signal. JSON GETs, Link-header and page-number pagination, and
 * the error text of a failed call (method, URL, status and the provider's message).
 */
import { isRecord } from "../api/index.js";
import type { ScmCaller, ScmHttpClient, ScmRequest, ScmResponse } from "./http.js";
import type { TlsOptions, Transport } from "./transport.js";
import { RateLimitedError } from "./ratelimit.js";
import { PageWalk, rewrapLimit } from "./limits.js";
import { ScmTimeoutError } from "./timeouts.js";
import { ScmApiError, type Repository } from "./types.js";
import { trimTrailingSlashes } from "../trim.js";

/** Where and how one provider instance talks. */
export interface ApiTarget {
  readonly http: ScmHttpClient;
  readonly provider: string;
  /** Base URL without a trailing slash. */
  readonly baseUrl: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly tls?: TlsOptions;
  /** The transport of these requests instead of the client's (a Git repository's own proxy). */
  readonly transport?: Transport;
  readonly caller?: ScmCaller;
  readonly signal?: AbortSignal;
}

/** The optional parts of a target's requests: TLS, transport, caller and signal. */
function requestParts(t: ApiTarget): Pick<ScmRequest, "tls" | "transport" | "caller" | "signal"> {
  return {
    ...(t.tls === undefined ? {} : { tls: t.tls }),
    ...(t.transport === undefined ? {} : { transport: t.transport }),
    ...(t.caller === undefined ? {} : { caller: t.caller }),
    ...(t.signal === undefined ? {} : { signal: t.signal }),
  };
}

/** `user:password` as a Basic authorization header value. */
export function basicAuth(user: string, password: string): string {
  return `Basic ${Buffer.from(`${user}:${password}`, "utf8").toString("base64")}`;
}

/** Joins a base URL and a path (or returns an absolute URL unchanged). */
export function joinUrl(base: string, path: string): string {
  if (/^https?:\/\//.test(path)) return path;
  return `${trimTrailingSlashes(base)}/${path.replace(/^\/+/, "")}`;
}

/** Percent-encodes one path segment. */
export const seg = encodeURIComponent;

function providerMessage(body: string): string {
  try {
    const parsed: unknown = JSON.parse(body);
    if (isRecord(parsed)) {
      const m = parsed["message"] ?? parsed["error"] ?? parsed["error_description"];
      if (typeof m === "string") return m;
      if (isRecord(m) && typeof m["message"] === "string") return m["message"];
      const errors = parsed["errors"];
      if (Array.isArray(errors) && isRecord(errors[0]) && typeof errors[0]["message"] === "string") return errors[0]["message"];
    }
  } catch {
    // not JSON
  }
  return body.trim().slice(0, 200);
}

/** The error of a non-2xx answer. */
export function apiError(method: string, url: string, res: { status: number; body: string }): ScmApiError {
  return new ScmApiError(res.status, `${method} ${url}: ${String(res.status)} ${providerMessage(res.body)}`.trim());
}

/** Sends a GET; resolves with any status (rate-limit refusals reject). */
export function get(t: ApiTarget, path: string, endpoint?: string): Promise<ScmResponse> {
  return t.http.request({
    provider: t.provider,
    url: joinUrl(t.baseUrl, path),
    headers: { Accept: "application/json", ...t.headers },
    ...(endpoint === undefined ? {} : { endpoint }),
    ...requestParts(t),
  });
}

/** Parses a JSON body; a malformed body is an error naming the URL. */
export function parseJson(url: string, body: string): unknown {
  try {
    return JSON.parse(body) as unknown;
  } catch {
    throw new ScmApiError(200, `GET ${url}: invalid JSON in response`);
  }
}

/** GETs JSON; any non-2xx rejects with {@link ScmApiError}. */
export async function getJson(t: ApiTarget, path: string, endpoint?: string): Promise<unknown> {
  const res = await get(t, path, endpoint);
  const url = joinUrl(t.baseUrl, path);
  if (res.status < 200 || res.status > 299) throw apiError("GET", url, res);
  return parseJson(url, res.body);
}

/** GETs JSON, or undefined on 404. */
export async function getJsonOr404(t: ApiTarget, path: string, endpoint?: string): Promise<unknown> {
  const res = await get(t, path, endpoint);
  const url = joinUrl(t.baseUrl, path);
  if (res.status === 404) return undefined;
  if (res.status < 200 || res.status > 299) throw apiError("GET", url, res);
  return parseJson(url, res.body);
}

/** The `rel="next"` target of a Link header. */
export function nextLink(link: string | undefined): string | undefined {
  if (link === undefined) return undefined;
  for (const part of link.split(",")) {
    const m = /<([^>]+)>\s*;\s*rel="?next"?/.exec(part.trim());
    if (m?.[1] !== undefined) return m[1];
  }
  return undefined;
}

/** A walk over the pages of the listing that starts at `path` (same origin, at most the client's page limit). */
export function pageWalk(t: ApiTarget, path: string): PageWalk {
  return new PageWalk(joinUrl(t.baseUrl, path), t.http.sizeLimits.maxPages);
}

/**
 * Follows Link-header pagination from `path`, collecting the array every page holds; a next page
 * on another origin, or more pages than the limit, rejects (see `limits.ts`).
 */
export async function listByLink(t: ApiTarget, path: string, endpoint?: string): Promise<unknown[]> {
  const out: unknown[] = [];
  const walk = pageWalk(t, path);
  for (let next: string | undefined = joinUrl(t.baseUrl, path); next !== undefined;) {
    walk.count();
    const url: string = next;
    const res = await get(t, url, endpoint);
    if (res.status < 200 || res.status > 299) throw apiError("GET", url, res);
    const page = parseJson(url, res.body);
    if (!Array.isArray(page)) throw new ScmApiError(res.status, `GET ${url}: expected a JSON array`);
    out.push(...(page as unknown[]));
    const link = nextLink(res.headers["link"]);
    next = link === undefined ? undefined : walk.next(link, url);
  }
  return out;
}

/** A string field of a JSON object ("" when absent). */
export function str(o: unknown, ...path: string[]): string {
  const v = at(o, ...path);
  return typeof v === "string" ? v : typeof v === "number" ? String(v) : "";
}

/** A nested field of a JSON object. */
export function at(o: unknown, ...path: string[]): unknown {
  let cur = o;
  for (const k of path) cur = isRecord(cur) ? cur[k] : undefined;
  return cur;
}

/** An array field of a JSON object ([] when absent). */
export function arr(o: unknown, ...path: string[]): unknown[] {
  const v = at(o, ...path);
  return Array.isArray(v) ? v : [];
}

/** Path existence on a commit never changes: remembered by SHA when there is one. */
export async function memoPath(
  t: ApiTarget,
  at: { scope: string; repo: Repository; path: string },
  check: () => Promise<boolean>,
): Promise<boolean> {
  const { scope, repo, path } = at;
  if (repo.sha === "") return check();
  const key = `path ${scope} ${repo.organization}/${repo.repository}@${repo.sha}:${path}`;
  const now = t.http.clock.now();
  const hit = t.http.derived.get<boolean>(key, "", now, Number.POSITIVE_INFINITY);
  if (hit !== undefined) return hit;
  const found = await check();
  t.http.derived.set(key, "", now, found);
  return found;
}

/**
 * Whether `path` exists on the repository's branch, by the GitHub-style contents API that GitHub and
 * Gitea share (`repos/{owner}/{repo}/contents/{path}?ref=`): 404 means no; remembered per commit.
 */
export function contentsPathExists(t: ApiTarget, scope: string, repo: Repository, path: string): Promise<boolean> {
  return memoPath(t, { scope, repo, path }, async () => {
    const p = `repos/${seg(repo.organization)}/${seg(repo.repository)}/contents/${path.split("/").map(seg).join("/")}?ref=${seg(repo.branch)}`;
    const res = await get(t, p, "/repos/{owner}/{repo}/contents/{path}");
    if (res.status === 404) return false;
    if (res.status < 200 || res.status > 299) throw apiError("GET", joinUrl(t.baseUrl, p), res);
    return true;
  });
}

/** Argo CD's `fmt.Errorf(prefix + ": %w", err)`, keeping the type of API, timeout and rate-limit errors. */
export function wrap(prefix: string, err: unknown): Error {
  if (err instanceof ScmTimeoutError) return new ScmTimeoutError(err.detail, `${prefix}: ${err.message}`);
  const limit = rewrapLimit(prefix, err);
  if (limit !== undefined) return limit;
  if (err instanceof ScmApiError) return new ScmApiError(err.status, `${prefix}: ${err.message}`);
  if (err instanceof RateLimitedError) return err;
  return new Error(`${prefix}: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
}

/** Sends a POST with a JSON body and parses the JSON answer; any non-2xx rejects. */
export async function postJson(t: ApiTarget, path: string, body: unknown, endpoint?: string): Promise<unknown> {
  const url = joinUrl(t.baseUrl, path);
  const res = await t.http.request({
    provider: t.provider,
    url,
    method: "POST",
    headers: { Accept: "application/json", "Content-Type": "application/json", ...t.headers },
    body: JSON.stringify(body),
    ...(endpoint === undefined ? {} : { endpoint }),
    ...requestParts(t),
  });
  if (res.status < 200 || res.status > 299) throw apiError("POST", url, res);
  return parseJson(url, res.body);
}
