/**
 * Time limits of every SCM provider request, so that a provider that accepts a connection and
 * never answers (or stalls half-way through a body) cannot hold a reconcile worker:
 * - the connect limit bounds connection setup: the TCP connection, the TLS handshake, and through
 *   `--scm-proxy-url` the proxy's `CONNECT` tunnel;
 * - the total limit bounds the whole exchange: connection, request, response headers and body.
 * Both are combined with the caller's abort signal; the caller's own abort stays an abort, a limit
 * that runs out is a {@link ScmTimeoutError}. Argo CD's SCM clients set no total limit; these
 * defaults are ours.
 */
import { urlShown } from "../response-limit.js";
import { ScmApiError } from "./types.js";

/** The limits of one request (milliseconds). */
export interface HttpTimeouts {
  /** Longest wait for the connection to be set up. */
  readonly connectMs: number;
  /** Longest wait for the whole exchange, the answer's body included. */
  readonly totalMs: number;
}

/** Default limits of SCM provider requests: 10 s to connect, 60 s in all. */
export const DEFAULT_SCM_TIMEOUTS: HttpTimeouts = { connectMs: 10_000, totalMs: 60_000 };

/** A limit as people write it: `10s`, `1.5s`, `250ms`. */
export function formatLimit(ms: number): string {
  return ms >= 1000 ? `${String(ms / 1000)}s` : `${String(ms)}ms`;
}

/** A URL without its query, fragment and user info (what a timeout message names). */
export const shownUrl = urlShown;

/** What ran out: connection setup, or the whole exchange. */
export type TimeoutPhase = "connect" | "request";

/** The facts of one timeout. */
export interface TimeoutDetail {
  readonly phase: TimeoutPhase;
  /** The request's URL. */
  readonly url: string;
  readonly limitMs: number;
}

/** The message of a timeout: `connection to <origin> timed out after 10s`, `request to <url> timed out after 60s`. */
export function timeoutMessage(d: TimeoutDetail): string {
  const what = d.phase === "connect" ? `connection to ${new URL(d.url).origin}` : `request to ${shownUrl(d.url)}`;
  return `${what} timed out after ${formatLimit(d.limitMs)}`;
}

/**
 * An SCM request ran out of time. It is an {@link ScmApiError} with status 0 (no answer), so a
 * generator fails with a condition and is retried; it never reads as "no repositories".
 */
export class ScmTimeoutError extends ScmApiError {
  constructor(
    readonly detail: TimeoutDetail,
    message: string = timeoutMessage(detail),
  ) {
    super(0, message);
  }
}

/** Resolves the limits of a client from partial settings (each absent or non-positive one takes its default). */
export function resolveTimeouts(t: Partial<HttpTimeouts> | undefined): HttpTimeouts {
  const pick = (v: number | undefined, d: number): number => (v !== undefined && Number.isFinite(v) && v > 0 ? v : d);
  return { connectMs: pick(t?.connectMs, DEFAULT_SCM_TIMEOUTS.connectMs), totalMs: pick(t?.totalMs, DEFAULT_SCM_TIMEOUTS.totalMs) };
}
