/**
 * One error type for everything that can go wrong talking to the apiserver. client-node reports
 * failures in three shapes: the generated APIs throw `ApiException { code, body }`, its `Watch`
 * builds an ad hoc `Error & { statusCode }`, and a watch stream carries `ERROR` events whose object
 * is a `metav1.Status`; on top of that undici throws network errors (`TypeError: fetch failed` with
 * a `cause` carrying `ECONNREFUSED`, `UND_ERR_SOCKET`, ...) and aborts (`AbortError`,
 * `TimeoutError`). {@link toKubeApiError} folds all of them into {@link KubeApiError} with a stable
 * {@link KubeReason}, keeping the apiserver's own Status message.
 */
import { AppSetError } from "../errors.js";

/** The closed set of reasons a {@link KubeApiError} carries. */
export const KubeReason = {
  NotFound: "NotFound",
  Conflict: "Conflict",
  AlreadyExists: "AlreadyExists",
  Gone: "Gone",
  Forbidden: "Forbidden",
  Unauthorized: "Unauthorized",
  Invalid: "Invalid",
  RequestEntityTooLarge: "RequestEntityTooLarge",
  TooManyRequests: "TooManyRequests",
  ServerError: "ServerError",
  Timeout: "Timeout",
  Network: "Network",
  Unknown: "Unknown",
} as const;
export type KubeReason = (typeof KubeReason)[keyof typeof KubeReason];

/** The `metav1.Status` fields we read from an error body or a watch ERROR event. */
export interface KubeStatus {
  kind?: string;
  code?: number;
  reason?: string;
  message?: string;
  details?: unknown;
}

/**
 * A failed apiserver call. `status` is the HTTP status (0 when no response arrived); `reason` is
 * stable; `statusReason` is the apiserver's own `Status.reason` (e.g. "Expired", "BadRequest") when
 * one was sent; `message` is the apiserver's Status message when there was one; `server` is the
 * `host:port` the request went to, when the transport that sent it said so ({@link atServer}).
 */
export class KubeApiError extends AppSetError {
  declare readonly reason: KubeReason;
  readonly status: number;
  readonly statusReason: string | undefined;
  server: string | undefined;

  constructor(init: { status: number; reason: KubeReason; message: string; statusReason?: string; cause?: unknown; server?: string }) {
    super(init.reason, init.message, { cause: init.cause });
    this.status = init.status;
    this.statusReason = init.statusReason;
    this.server = init.server;
  }
}

/** `err` as a {@link KubeApiError} that names `server` (`host:port`) as where it happened, unless it names one already. */
export function atServer(err: unknown, server: string): KubeApiError {
  const e = toKubeApiError(err);
  e.server ??= server;
  return e;
}

const networkCodes = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EPIPE",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ETIMEDOUT",
  "UND_ERR_SOCKET",
  "UND_ERR_CLOSED",
  "UND_ERR_CONNECT_TIMEOUT",
  "UND_ERR_HEADERS_TIMEOUT",
  "UND_ERR_BODY_TIMEOUT",
  "ERR_STREAM_PREMATURE_CLOSE",
  // node:http2 (src/kube/h2-connection.ts): the session or a stream ended under a request.
  "ERR_HTTP2_STREAM_ERROR",
  "ERR_HTTP2_GOAWAY_SESSION",
  "ERR_HTTP2_SESSION_ERROR",
  "ERR_HTTP2_INVALID_SESSION",
  "ERR_HTTP2_STREAM_CANCEL",
  "ERR_HTTP2_ERROR",
]);

const reasonByStatus: Readonly<Record<number, KubeReason>> = {
  400: KubeReason.Invalid,
  401: KubeReason.Unauthorized,
  403: KubeReason.Forbidden,
  404: KubeReason.NotFound,
  408: KubeReason.Timeout,
  409: KubeReason.Conflict,
  410: KubeReason.Gone,
  413: KubeReason.RequestEntityTooLarge,
  415: KubeReason.Invalid,
  422: KubeReason.Invalid,
  429: KubeReason.TooManyRequests,
  504: KubeReason.Timeout,
};

/**
 * Maps an HTTP status and the Status `reason` the apiserver sent to a {@link KubeReason}. 400
 * (BadRequest) and 415 (e.g. strategic merge patch on a custom resource) count as Invalid: the
 * request itself is wrong and resending it will not help.
 */
export function reasonForStatus(status: number, statusReason?: string): KubeReason {
  if (status === 409 && statusReason === "AlreadyExists") return KubeReason.AlreadyExists;
  const known = reasonByStatus[status];
  if (known !== undefined) return known;
  return status >= 500 && status < 600 ? KubeReason.ServerError : KubeReason.Unknown;
}

/** Builds a {@link KubeApiError} from an HTTP status and a (possibly absent) Status body. */
export function fromStatus(status: number, body: unknown, cause?: unknown): KubeApiError {
  const st = asStatus(body);
  const code = status > 0 ? status : (st?.code ?? 0);
  const base = st?.message ?? (typeof body === "string" && body !== "" ? body : `HTTP ${code}`);
  const causes = causeMessages(st?.details).filter((c) => !base.includes(c));
  const message = causes.length === 0 ? base : `${base}: ${causes.join("; ")}`;
  return new KubeApiError({
    status: code,
    reason: reasonForStatus(code, st?.reason),
    statusReason: st?.reason,
    message,
    cause,
  });
}

/**
 * The messages of `details.causes`. For some failures (a JSON patch whose `test` fails, for one)
 * the apiserver's top-level message is generic and the real reason is only there.
 */
function causeMessages(details: unknown): string[] {
  const causes = (details as { causes?: unknown } | undefined)?.causes;
  if (!Array.isArray(causes)) return [];
  return causes.flatMap((c) => {
    const m = (c as { message?: unknown } | null)?.message;
    return typeof m === "string" && m !== "" ? [m] : [];
  });
}

/** Parses a Status from an object or a JSON string; undefined when the body is not one. */
export function asStatus(body: unknown): KubeStatus | undefined {
  let value = body;
  if (typeof body === "string") {
    try {
      value = JSON.parse(body) as unknown;
    } catch {
      return undefined;
    }
  }
  if (value === null || typeof value !== "object") return undefined;
  const v = value as Record<string, unknown>;
  if (v.kind !== undefined && v.kind !== "Status") return undefined;
  return {
    kind: "Status",
    code: typeof v.code === "number" ? v.code : undefined,
    reason: typeof v.reason === "string" ? v.reason : undefined,
    message: typeof v.message === "string" ? v.message : undefined,
    details: v.details,
  };
}

/**
 * Folds any thrown value from client-node, undici or our transport into a {@link KubeApiError}.
 * A value that already is one is returned unchanged.
 */
export function toKubeApiError(err: unknown): KubeApiError {
  if (err instanceof KubeApiError) return err;
  const httpStatus = httpStatusOf(err);
  if (httpStatus !== undefined) return fromStatus(httpStatus, (err as { body?: unknown }).body, err);
  const message = err instanceof Error ? err.message : String(err);
  if (isAbortLike(err)) {
    return new KubeApiError({ status: 0, reason: KubeReason.Timeout, message, cause: err });
  }
  const netCode = networkCodeOf(err);
  if (netCode !== undefined) {
    return new KubeApiError({ status: 0, reason: KubeReason.Network, message: `${message} (${netCode})`, cause: err });
  }
  return new KubeApiError({ status: 0, reason: KubeReason.Unknown, message, cause: err });
}

/** `ApiException.code` (generated APIs) or `statusCode` (client-node's Watch). */
function httpStatusOf(err: unknown): number | undefined {
  if (err === null || typeof err !== "object") return undefined;
  const e = err as { code?: unknown; statusCode?: unknown };
  const status = typeof e.statusCode === "number" ? e.statusCode : e.code;
  // DOMException has a numeric legacy `code` too (AbortError is 20): only HTTP statuses count.
  return typeof status === "number" && status >= 100 && status <= 599 ? status : undefined;
}

function isAbortLike(err: unknown): boolean {
  return err instanceof Error && (err.name === "AbortError" || err.name === "TimeoutError");
}

/** The first network error code found on the error or its `cause` chain. */
function networkCodeOf(err: unknown): string | undefined {
  for (let e: unknown = err, depth = 0; e !== null && typeof e === "object" && depth < 5; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string" && networkCodes.has(code)) return code;
    e = (e as { cause?: unknown }).cause;
  }
  if (err instanceof TypeError && err.message === "fetch failed") return "fetch failed";
  return undefined;
}

function hasReason(err: unknown, reason: KubeReason): boolean {
  return err instanceof KubeApiError && err.reason === reason;
}

/** True for a {@link KubeApiError} with reason NotFound. */
export const isNotFound = (err: unknown): boolean => hasReason(err, KubeReason.NotFound);
/** True for a {@link KubeApiError} with reason Conflict (stale resourceVersion, failed precondition). */
export const isConflict = (err: unknown): boolean => hasReason(err, KubeReason.Conflict);
/** True for a {@link KubeApiError} with reason AlreadyExists. */
export const isAlreadyExists = (err: unknown): boolean => hasReason(err, KubeReason.AlreadyExists);
/** True for a {@link KubeApiError} with reason Gone (expired resourceVersion or continue token). */
export const isGone = (err: unknown): boolean => hasReason(err, KubeReason.Gone);
/** True for a {@link KubeApiError} with reason Invalid. */
export const isInvalid = (err: unknown): boolean => hasReason(err, KubeReason.Invalid);
/** True for a {@link KubeApiError} with reason Forbidden. */
export const isForbidden = (err: unknown): boolean => hasReason(err, KubeReason.Forbidden);

const transientReasons: ReadonlySet<KubeReason> = new Set([
  KubeReason.Conflict,
  KubeReason.Gone,
  KubeReason.TooManyRequests,
  KubeReason.ServerError,
  KubeReason.Timeout,
  KubeReason.Network,
]);

/** True when retrying the same call later may succeed (conflicts, throttling, 5xx, network). */
export function isTransient(err: unknown): boolean {
  return err instanceof KubeApiError && transientReasons.has(err.reason);
}

const unreachableReasons: ReadonlySet<KubeReason> = new Set([
  KubeReason.ServerError,
  KubeReason.Timeout,
  KubeReason.Network,
  KubeReason.TooManyRequests,
]);

/**
 * True when `err` is, or wraps, a failure to reach the apiserver: no answer, a timeout, a 5xx, or a
 * 429 (the apiserver shedding load). Such a failure says nothing about the object being reconciled.
 */
export function isApiserverUnreachable(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 20; e = e.cause, depth++) {
    if (e instanceof KubeApiError) return unreachableReasons.has(e.reason);
  }
  return false;
}

/**
 * The server (`host:port`) that `err` failed to reach, as {@link isApiserverUnreachable} judges
 * failures to reach one: "" when the error does not say which; undefined when `err` is not such a
 * failure.
 */
export function unreachableServer(err: unknown): string | undefined {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 20; e = e.cause, depth++) {
    if (e instanceof KubeApiError) return unreachableReasons.has(e.reason) ? (e.server ?? "") : undefined;
  }
  return undefined;
}

/** Resolves to `undefined` instead of throwing when the call fails with NotFound. */
export async function ignoreNotFound<T>(call: Promise<T>): Promise<T | undefined> {
  try {
    return await call;
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}
