/**
 * Size limits of SCM provider answers, so a provider a tenant points the controller at cannot make
 * it buffer without end or page without end:
 * - every response body is read up to `maxResponseBytes` (default 10 MiB) and abandoned past it;
 * - pagination (a `Link: <…>; rel="next"` header, Bitbucket Cloud's `next` URL, Bitbucket Server's
 *   `nextPageStart`) stops with an error after `maxPages` pages (default 1,000) of one listing;
 * - a next page is followed only on the origin (scheme, host and port) of the listing's first
 *   request, so the credentials never go to a host the answer names.
 * Argo CD's SCM clients have none of these limits; the defaults are ours. Each limit that is hit is
 * an {@link ScmApiError} (status 0): the generator fails with a condition, never reads "no results".
 */
import { ResponseTooLargeError, MIB, urlShown, type SizeLimitDetail } from "../response-limit.js";
import { ScmApiError } from "./types.js";

/** The size limits of one SCM HTTP client. */
export interface ScmLimits {
  /** Largest response body, in bytes. */
  readonly maxResponseBytes: number;
  /** Most pages one listing may follow. */
  readonly maxPages: number;
}

/** Default limits: 10 MiB per answer, 1,000 pages per listing. */
export const DEFAULT_SCM_LIMITS: ScmLimits = { maxResponseBytes: 10 * MIB, maxPages: 1000 };

/** The settings that raise the limits (named in messages). */
export const SCM_LIMIT_SETTINGS = { maxResponseBytes: "--scm-max-response-bytes", maxPages: "--scm-max-pages" } as const;

/** Resolves limits from partial settings (an absent or non-positive one takes its default). */
export function resolveScmLimits(l: Partial<ScmLimits> | undefined): ScmLimits {
  const pick = (v: number | undefined, d: number): number => (v !== undefined && Number.isInteger(v) && v > 0 ? v : d);
  return {
    maxResponseBytes: pick(l?.maxResponseBytes, DEFAULT_SCM_LIMITS.maxResponseBytes),
    maxPages: pick(l?.maxPages, DEFAULT_SCM_LIMITS.maxPages),
  };
}

/** A provider's answer was larger than `maxResponseBytes`; reading stopped there. */
export class ScmResponseTooLargeError extends ScmApiError {
  constructor(
    readonly detail: SizeLimitDetail,
    message: string = new ResponseTooLargeError(detail).message,
  ) {
    super(0, message);
  }
}

/** A listing had more pages than `maxPages`. */
export class ScmPageLimitError extends ScmApiError {
  constructor(
    readonly url: string,
    readonly maxPages: number,
    message = `listing ${urlShown(url)} has more than ${String(maxPages)} pages; raise ${SCM_LIMIT_SETTINGS.maxPages} to follow more`,
  ) {
    super(0, message);
  }
}

/** A next page named another origin than the listing's first request; it was not requested. */
export class ScmCrossOriginPageError extends ScmApiError {
  constructor(
    readonly first: string,
    readonly next: string,
    message = `listing ${urlShown(first)} names its next page on another origin (${originOf(next)}); it is not followed, so the credentials stay with ${originOf(first)}`,
  ) {
    super(0, message);
  }
}

function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return JSON.stringify(url);
  }
}

/** The same limit error with `prefix: ` before its message (Argo CD's wrapping), or undefined for any other error. */
export function rewrapLimit(prefix: string, err: unknown): ScmApiError | undefined {
  if (err instanceof ScmResponseTooLargeError) return new ScmResponseTooLargeError(err.detail, `${prefix}: ${err.message}`);
  if (err instanceof ScmPageLimitError) return new ScmPageLimitError(err.url, err.maxPages, `${prefix}: ${err.message}`);
  if (err instanceof ScmCrossOriginPageError) return new ScmCrossOriginPageError(err.first, err.next, `${prefix}: ${err.message}`);
  return undefined;
}

/**
 * Follows one listing's pages: `next(url)` resolves each next page against the page that named it,
 * refuses another origin than the first page's, and counts pages against the limit.
 */
export class PageWalk {
  private pages = 0;
  private readonly origin: string;

  constructor(
    private readonly first: string,
    private readonly maxPages: number,
  ) {
    this.origin = new URL(first).origin;
  }

  /** Counts one page about to be requested; throws {@link ScmPageLimitError} past the limit. */
  count(): void {
    this.pages++;
    if (this.pages > this.maxPages) throw new ScmPageLimitError(this.first, this.maxPages);
  }

  /** The absolute URL of a next page named by `from`; throws {@link ScmCrossOriginPageError} for another origin. */
  next(link: string, from: string): string {
    const url = new URL(link, from);
    if (url.origin !== this.origin) throw new ScmCrossOriginPageError(this.first, url.toString());
    return url.toString();
  }
}
