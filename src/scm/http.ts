/**
 * The one HTTP client of every SCM provider. It spends API budget carefully:
 * - conditional requests: a GET whose earlier 200 carried an `ETag` or `Last-Modified` is re-sent
 *   with `If-None-Match` / `If-Modified-Since`; a 304 is answered from the cache (GitHub does not
 *   count such a 304 against the rate limit). Entries are keyed by URL and by a hash of the
 *   credentials, so two tokens never share an answer;
 * - rate limits: the figures of every response are kept per host and credential; after a
 *   refusal (429, or 403 with nothing remaining) no request goes to that host with that credential
 *   until the reset time, and each attempt fails with the same {@link RateLimitedError};
 * - a call counter (requests sent, 304s, refusals, calls not sent because of a backoff) per
 *   provider, for the figures and for tests.
 * - time limits: every request has a connect limit and a total limit ({@link HttpTimeouts}),
 *   combined with the caller's abort signal; running out rejects with {@link ScmTimeoutError}.
 * - size limits ({@link ScmLimits}): a body past `maxResponseBytes` is abandoned and rejects with
 *   {@link ScmResponseTooLargeError}; the page limit is the paginators' (`api.ts`).
 * It also keeps provider-derived results keyed by a fingerprint ({@link DerivedCache}), so a
 * provider can skip per-repository calls when a listing shows nothing changed.
 */
import { createHash } from "node:crypto";
import type { Clock } from "../clock/index.js";
import { ResponseTooLargeError } from "../response-limit.js";
import { resolveScmLimits, SCM_LIMIT_SETTINGS, ScmResponseTooLargeError, type ScmLimits } from "./limits.js";
import { rateLimitFigures, RateLimitedError, refusalBackoffMs, type RateLimitFigures } from "./ratelimit.js";
import { resolveTimeouts, ScmTimeoutError, type HttpTimeouts } from "./timeouts.js";
import { nodeTransport, type TlsOptions, type Transport, type TransportRequest, type TransportResponse } from "./transport.js";

/** Who a request is made for (metrics labels). */
export interface ScmCaller {
  readonly namespace: string;
  readonly name: string;
}

/** One request through the client. */
export interface ScmRequest {
  /** Provider name for counters and metrics (`github`, `gitlab`, …). */
  readonly provider: string;
  readonly url: string;
  /** Default GET. Only GETs are conditional and cached. */
  readonly method?: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: string;
  readonly tls?: TlsOptions;
  /**
   * The transport of this request instead of the client's: a Git repository's own proxy for its
   * GitHub App token exchange. Limits, caches and back-offs stay the client's.
   */
  readonly transport?: Transport;
  /** The route template for metrics (`/orgs/{org}/repos`); defaults to the URL path. */
  readonly endpoint?: string;
  readonly caller?: ScmCaller;
  readonly signal?: AbortSignal;
}

/** A response; `notModified` is true when it came from the cache after a 304. */
export interface ScmResponse extends TransportResponse {
  readonly notModified: boolean;
}

/** Call counts of one provider. */
export interface CallCounts {
  /** Requests sent. */
  requests: number;
  /** Of those, conditional requests answered 304. */
  notModified: number;
  /** Of those, rate-limit refusals. */
  rateLimited: number;
  /** Requests not sent because the host was backing off. */
  suppressed: number;
}

/** The last rate-limit figures seen for one host and credential. */
export interface RateLimitState extends RateLimitFigures {
  readonly provider: string;
  readonly host: string;
  /** Until when requests are held back (ms since the epoch), 0 when not backing off. */
  readonly blockedUntilMs: number;
}

/** Receives request and rate-limit observations (metrics). */
export interface ScmObserver {
  request(o: { provider: string; method: string; endpoint: string; status: number; seconds: number; caller?: ScmCaller }): void;
  rateLimit(o: {
    provider: string;
    endpoint: string;
    resource: string;
    figures: RateLimitFigures;
    resetSeconds: number;
    caller?: ScmCaller;
  }): void;
}

/** Options of {@link ScmHttpClient}. */
export interface ScmHttpOptions {
  readonly clock: Clock;
  readonly transport?: Transport;
  readonly observer?: ScmObserver;
  /** PEM roots trusted for every provider (`--scm-root-ca-path`). */
  readonly rootCa?: string;
  /** Most cached responses kept (least recently used go first). Default 10,000. */
  readonly maxCacheEntries?: number;
  /** `User-Agent` sent on every request. */
  readonly userAgent?: string;
  /** Connect and total limits of every request (default 10 s to connect, 60 s in all). */
  readonly timeouts?: Partial<HttpTimeouts>;
  /** Largest answer and most pages of a listing (default 10 MiB and 1,000). */
  readonly limits?: Partial<ScmLimits>;
}

interface CacheEntry {
  readonly etag?: string;
  readonly lastModified?: string;
  readonly response: TransportResponse;
}

/**
 * The headers that carry a provider credential: `Authorization` (GitHub, Gitea, Bitbucket, Azure
 * DevOps, AWS) and GitLab's `PRIVATE-TOKEN`. Compared without case.
 */
const CREDENTIAL_HEADERS: readonly string[] = ["authorization", "private-token"];

/**
 * A short, non-reversible identity of the credentials a request carries ("anonymous" for none):
 * a hash of every credential header, so two tokens never share a cached answer or a backoff, and
 * the token itself never stands in a key or a log line.
 */
export function credentialIdentity(headers: Readonly<Record<string, string>> | undefined): string {
  const parts: string[] = [];
  for (const [name, value] of Object.entries(headers ?? {})) {
    const lower = name.toLowerCase();
    if (!CREDENTIAL_HEADERS.includes(lower) || value === "") continue;
    // A SigV4 header changes with every request; its access key id is the stable identity.
    const awsKey = lower === "authorization" ? /^AWS4-HMAC-SHA256 Credential=([^/]+)\//.exec(value)?.[1] : undefined;
    parts.push(lower === "authorization" ? (awsKey ?? value) : `${lower}: ${value}`);
  }
  if (parts.length === 0) return "anonymous";
  return createHash("sha256").update(parts.sort().join("\n")).digest("hex").slice(0, 16);
}

/** Results derived from several responses, reused while their fingerprint is unchanged and young enough. */
export class DerivedCache {
  private readonly entries = new Map<string, { fingerprint: string; atMs: number; value: unknown }>();

  constructor(private readonly max: number) {}

  /** The value stored under `key` with this fingerprint, no older than `maxAgeMs`. */
  get<T>(key: string, fingerprint: string, nowMs: number, maxAgeMs: number): T | undefined {
    const e = this.entries.get(key);
    if (e === undefined || e.fingerprint !== fingerprint || nowMs - e.atMs > maxAgeMs) return undefined;
    return e.value as T;
  }

  set(key: string, fingerprint: string, nowMs: number, value: unknown): void {
    this.entries.delete(key);
    this.entries.set(key, { fingerprint, atMs: nowMs, value });
    if (this.entries.size > this.max) this.entries.delete(this.entries.keys().next().value as string);
  }
}

/** The SCM HTTP client (long-lived: its caches and backoffs outlive one reconcile). */
export class ScmHttpClient {
  readonly derived: DerivedCache;
  private readonly transport: Transport;
  private readonly cache = new Map<string, CacheEntry>();
  private readonly limits = new Map<string, RateLimitState>();
  private readonly counts = new Map<string, CallCounts>();
  private readonly maxEntries: number;
  /** The limits every request runs under. */
  readonly timeouts: HttpTimeouts;
  /** The size limits every request and listing runs under. */
  readonly sizeLimits: ScmLimits;

  constructor(private readonly options: ScmHttpOptions) {
    this.transport = options.transport ?? nodeTransport;
    this.maxEntries = options.maxCacheEntries ?? 10_000;
    this.derived = new DerivedCache(this.maxEntries);
    this.timeouts = resolveTimeouts(options.timeouts);
    this.sizeLimits = resolveScmLimits(options.limits);
  }

  /** The clock the client runs on. */
  get clock(): Clock {
    return this.options.clock;
  }

  /** Call counts per provider (a copy). */
  stats(): Record<string, CallCounts> {
    return Object.fromEntries([...this.counts].map(([k, v]) => [k, { ...v }]));
  }

  /** Total requests sent to a provider so far. */
  requestsTo(provider: string): number {
    return this.counts.get(provider)?.requests ?? 0;
  }

  /** The last rate-limit figures per host and credential. */
  rateLimits(): RateLimitState[] {
    return [...this.limits.values()];
  }

  /**
   * Sends a request (conditionally when a cached answer exists). Resolves with any HTTP status
   * except a rate-limit refusal, which rejects with {@link RateLimitedError}; also rejects without
   * sending while the host and credential are backing off, and with {@link ScmTimeoutError} when
   * the connection or the whole exchange takes longer than its limit. An abort of `req.signal`
   * rejects with the signal's reason.
   */
  async request(req: ScmRequest): Promise<ScmResponse> {
    const method = req.method ?? "GET";
    const url = new URL(req.url);
    const identity = credentialIdentity(req.headers);
    const limitKey = `${url.host} ${identity}`;
    const counts = this.countsOf(req.provider);
    const now = this.options.clock.now();
    this.refuseWhileBlocked({ limitKey, host: url.host, counts, now });
    const cacheKey = `${identity} ${req.url}`;
    const cached = method === "GET" ? this.cache.get(cacheKey) : undefined;
    const res = await this.send(req, method, cached);
    counts.requests++;
    const endpoint = req.endpoint ?? url.pathname;
    const after = this.options.clock.now();
    this.options.observer?.request({
      provider: req.provider,
      method,
      endpoint,
      status: res.status,
      seconds: (after - now) / 1000,
      ...callerOf(req),
    });
    const backoff = refusalBackoffMs(res, after);
    this.recordLimits({ req, host: url.host, limitKey, endpoint, res, blockedUntilMs: backoff === undefined ? 0 : after + backoff });
    if (backoff !== undefined) {
      counts.rateLimited++;
      throw new RateLimitedError(url.host, backoff);
    }
    return this.answer({ method, cacheKey, cached, res, counts });
  }

  /** Rejects without sending while the host and credential are backing off. */
  private refuseWhileBlocked(o: { limitKey: string; host: string; counts: CallCounts; now: number }): void {
    const blocked = this.limits.get(o.limitKey)?.blockedUntilMs ?? 0;
    if (blocked > o.now) {
      o.counts.suppressed++;
      throw new RateLimitedError(o.host, blocked - o.now);
    }
  }

  /** The response: the cached one on a 304, else the new one (stored when it is a cacheable GET). */
  private answer(o: {
    method: string;
    cacheKey: string;
    cached: CacheEntry | undefined;
    res: TransportResponse;
    counts: CallCounts;
  }): ScmResponse {
    if (o.res.status === 304 && o.cached !== undefined) {
      o.counts.notModified++;
      this.touch(o.cacheKey, o.cached);
      return { ...o.cached.response, notModified: true };
    }
    if (o.method === "GET" && o.res.status === 200) this.store(o.cacheKey, o.res);
    return { ...o.res, notModified: false };
  }

  private send(req: ScmRequest, method: string, cached: CacheEntry | undefined): Promise<TransportResponse> {
    const headers: Record<string, string> = {
      "User-Agent": this.options.userAgent ?? "argocd-applicationset",
      ...req.headers,
      ...conditionalHeaders(cached),
    };
    const request: TransportRequest = {
      method,
      url: req.url,
      headers,
      ...(req.body === undefined ? {} : { body: req.body }),
      tls: this.tlsOf(req),
      connectTimeoutMs: this.timeouts.connectMs,
      bodyLimit: {
        source: `SCM provider ${JSON.stringify(req.provider)}`,
        url: req.url,
        limitBytes: this.sizeLimits.maxResponseBytes,
        setting: SCM_LIMIT_SETTINGS.maxResponseBytes,
      },
    };
    return this.limited(request, req.signal, req.transport ?? this.transport);
  }

  /** The TLS options of a request: the root CAs, the request's own CAs, `insecure` and a client certificate. */
  private tlsOf(req: ScmRequest): TlsOptions {
    const extraCa = [...(this.options.rootCa === undefined ? [] : [this.options.rootCa]), ...(req.tls?.extraCa ?? [])];
    return {
      ...(extraCa.length > 0 ? { extraCa } : {}),
      ...(req.tls?.insecure === true ? { insecure: true } : {}),
      ...(req.tls?.clientCert === undefined ? {} : { clientCert: req.tls.clientCert }),
    };
  }

  /** Sends through `transport` under the total limit, combined with the caller's signal. */
  private async limited(request: TransportRequest, caller: AbortSignal | undefined, transport: Transport): Promise<TransportResponse> {
    const totalMs = this.timeouts.totalMs;
    const deadline = AbortSignal.timeout(totalMs);
    const signal = caller === undefined ? deadline : AbortSignal.any([caller, deadline]);
    try {
      return await transport({ ...request, signal });
    } catch (err) {
      if (err instanceof ResponseTooLargeError) throw new ScmResponseTooLargeError(err.detail);
      if (err instanceof ScmTimeoutError || caller?.aborted === true || !deadline.aborted) throw err;
      throw new ScmTimeoutError({ phase: "request", url: request.url, limitMs: totalMs });
    }
  }

  private recordLimits(o: {
    req: ScmRequest;
    host: string;
    limitKey: string;
    endpoint: string;
    res: TransportResponse;
    blockedUntilMs: number;
  }): void {
    const now = this.options.clock.now();
    const figures = rateLimitFigures(o.res.headers, now);
    const previous = this.limits.get(o.limitKey);
    if (figures === undefined && o.blockedUntilMs === 0 && previous === undefined) return;
    const merged: RateLimitState = {
      ...(figures ?? { resource: previous?.resource ?? "" }),
      provider: o.req.provider,
      host: o.host,
      blockedUntilMs: o.blockedUntilMs,
    };
    this.limits.set(o.limitKey, merged);
    if (figures === undefined) return;
    const resetSeconds = figures.resetAtMs === undefined ? 0 : Math.max(0, Math.round((figures.resetAtMs - now) / 1000));
    this.options.observer?.rateLimit({
      provider: o.req.provider,
      endpoint: o.endpoint,
      resource: figures.resource,
      figures,
      resetSeconds,
      ...callerOf(o.req),
    });
  }

  private store(key: string, res: TransportResponse): void {
    const etag = res.headers["etag"];
    const lastModified = res.headers["last-modified"];
    if (etag === undefined && lastModified === undefined) return;
    this.touch(key, { ...(etag === undefined ? {} : { etag }), ...(lastModified === undefined ? {} : { lastModified }), response: res });
  }

  private touch(key: string, entry: CacheEntry): void {
    this.cache.delete(key);
    this.cache.set(key, entry);
    if (this.cache.size > this.maxEntries) this.cache.delete(this.cache.keys().next().value as string);
  }

  private countsOf(provider: string): CallCounts {
    let c = this.counts.get(provider);
    if (c === undefined) {
      c = { requests: 0, notModified: 0, rateLimited: 0, suppressed: 0 };
      this.counts.set(provider, c);
    }
    return c;
  }
}

function callerOf(req: ScmRequest): { caller?: ScmCaller } {
  return req.caller === undefined ? {} : { caller: req.caller };
}

/** The headers that make a request conditional on a cached answer. */
function conditionalHeaders(cached: CacheEntry | undefined): Record<string, string> {
  const headers: Record<string, string> = {};
  if (cached?.etag !== undefined) headers["If-None-Match"] = cached.etag;
  if (cached?.lastModified !== undefined) headers["If-Modified-Since"] = cached.lastModified;
  return headers;
}
