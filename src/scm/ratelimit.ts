/**
 * Rate limits of SCM provider APIs: reading the figures a response carries (GitHub's
 * `X-RateLimit-*`, GitLab's `RateLimit-*`, `Retry-After`), recognising a refusal (429, GitHub's
 * 403 with no requests remaining or a secondary limit, AWS's 400 naming a throttling exception),
 * and the error raised while a host is backing off. The error's message never changes from one retry to the next (no request id, no
 * clock reading), so a failing generator does not rewrite the ApplicationSet status on each retry.
 */
import { AppSetError } from "../errors.js";

/** The rate-limit figures of one response (absent figures are undefined). */
export interface RateLimitFigures {
  readonly limit?: number;
  readonly remaining?: number;
  readonly used?: number;
  /** When the window resets (ms since the epoch). */
  readonly resetAtMs?: number;
  /** The limit's bucket (`core`, `search`, `graphql` on GitHub), "" if not given. */
  readonly resource: string;
}

/** Backoff when a refusal names no reset time. */
export const DEFAULT_RATE_LIMIT_BACKOFF_MS = 60_000;

function num(v: string | undefined): number | undefined {
  if (v === undefined || v.trim() === "") return undefined;
  const n = Number(v.trim());
  return Number.isFinite(n) ? n : undefined;
}

/** `Retry-After` as milliseconds from now (seconds or an HTTP date). */
export function retryAfterMs(value: string | undefined, nowMs: number): number | undefined {
  if (value === undefined) return undefined;
  const secs = num(value);
  if (secs !== undefined) return Math.max(0, secs * 1000);
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - nowMs);
}

/**
 * The rate-limit figures of a response, or undefined when it carries none. A reset given as a small
 * number is taken as seconds from now (IETF draft), a large one as epoch seconds (GitHub, GitLab).
 */
export function rateLimitFigures(headers: Readonly<Record<string, string>>, nowMs: number): RateLimitFigures | undefined {
  const get = (name: string): string | undefined => headers[`x-ratelimit-${name}`] ?? headers[`ratelimit-${name}`];
  const limit = num(get("limit"));
  const remaining = num(get("remaining"));
  if (limit === undefined && remaining === undefined) return undefined;
  const resetAtMs = resetAt(num(get("reset")), nowMs);
  const used = num(get("used")) ?? num(get("observed")) ?? usedOf(limit, remaining);
  return { ...definedOnly({ limit, remaining, used, resetAtMs }), resource: get("resource") ?? "" };
}

/** A reset as epoch milliseconds: a small number is seconds from now, a large one epoch seconds. */
function resetAt(reset: number | undefined, nowMs: number): number | undefined {
  if (reset === undefined) return undefined;
  return reset > 1e9 ? reset * 1000 : nowMs + reset * 1000;
}

/** The requests used, from the limit and what remains, when both are known. */
function usedOf(limit: number | undefined, remaining: number | undefined): number | undefined {
  return limit !== undefined && remaining !== undefined ? limit - remaining : undefined;
}

/** The entries whose value is defined, in their order. */
function definedOnly<T extends Record<string, unknown>>(o: T): { [K in keyof T]?: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as { [K in keyof T]?: Exclude<T[K], undefined> };
}

/** AWS's throttling answers: a JSON `__type` or an XML `<Code>` naming a throttling exception. */
const AWS_THROTTLING =
  /("__type"\s*:\s*"(?:[^"#]*#)?|<Code>)(ThrottlingException|ThrottledException|Throttling|TooManyRequestsException|RequestLimitExceeded)["<]/;

/** Whether a 400 answer body is AWS's "slow down". */
export function awsThrottled(body: string): boolean {
  return AWS_THROTTLING.test(body);
}

/**
 * When a response is a rate-limit refusal, how long to back off (ms); undefined otherwise.
 * 429 always is; a 403 is when no requests remain or the provider names a retry time or a
 * secondary limit (GitHub); a 400 is when AWS names a throttling exception.
 */
export function refusalBackoffMs(
  res: { status: number; headers: Readonly<Record<string, string>>; body: string },
  nowMs: number,
): number | undefined {
  const figures = rateLimitFigures(res.headers, nowMs);
  const retry = retryAfterMs(res.headers["retry-after"], nowMs);
  const exhausted = figures?.remaining === 0;
  const refused =
    res.status === 429 ||
    (res.status === 403 && (exhausted || retry !== undefined || /rate limit/i.test(res.body))) ||
    (res.status === 400 && awsThrottled(res.body));
  if (!refused) return undefined;
  if (retry !== undefined) return retry;
  if (figures?.resetAtMs !== undefined) return Math.max(0, figures.resetAtMs - nowMs);
  return DEFAULT_RATE_LIMIT_BACKOFF_MS;
}

/** Stable reason of {@link RateLimitedError}. */
export const RATE_LIMITED_REASON = "ScmRateLimited";

/**
 * A provider refused requests for rate-limit reasons, or the host is still backing off from such a
 * refusal (no request was sent). `retryAfterMs` says when trying again makes sense; the message
 * holds only the host, so it is identical on every retry within a window.
 */
export class RateLimitedError extends AppSetError {
  constructor(
    readonly host: string,
    readonly retryAfterMs: number,
  ) {
    super(
      RATE_LIMITED_REASON,
      `API rate limit exceeded for ${host}: requests paused until the limit resets, existing Applications are kept`,
    );
  }
}
