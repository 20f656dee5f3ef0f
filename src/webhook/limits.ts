/**
 * Request limits of the webhook server, so a slow or stalled client cannot hold a connection:
 * the request line and headers must arrive within `headersTimeoutMs`, the whole request (body
 * included) within `requestTimeoutMs`; either miss is answered 408 and the connection closed. An
 * idle keep-alive connection is closed after `keepAliveTimeoutMs`, and headers larger than
 * `maxHeaderBytes` are refused with 431. The body's size limit is `argocd-cm`'s
 * `webhook.maxPayloadSizeMB` (see secrets.ts). Argo CD's webhook server sets none of these
 * timeouts; the defaults are ours.
 */
import type { HttpServerOptions } from "../server/index.js";

/** The webhook server's limits (milliseconds, bytes). */
export interface WebhookLimits {
  /** Longest wait for the request line and headers. */
  readonly headersTimeoutMs: number;
  /** Longest wait for the whole request, body included (at least `headersTimeoutMs`). */
  readonly requestTimeoutMs: number;
  /** How long an idle keep-alive connection stays open. */
  readonly keepAliveTimeoutMs: number;
  /** Largest request line plus headers accepted. */
  readonly maxHeaderBytes: number;
  /** How often the two timeouts are checked (node checks open requests periodically). */
  readonly checkIntervalMs: number;
}

/** Defaults: 10 s for headers, 30 s for the whole request, 5 s keep-alive, 16 KiB of headers. */
export const DEFAULT_WEBHOOK_LIMITS: WebhookLimits = {
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 5_000,
  maxHeaderBytes: 16 * 1024,
  checkIntervalMs: 1_000,
};

/** The limits with defaults filled in (a non-positive value takes its default; the header limit never exceeds the request limit). */
export function resolveWebhookLimits(partial: Partial<WebhookLimits> | undefined): WebhookLimits {
  const pick = (k: keyof WebhookLimits): number => {
    const v = partial?.[k];
    return v !== undefined && Number.isFinite(v) && v > 0 ? v : DEFAULT_WEBHOOK_LIMITS[k];
  };
  const requestTimeoutMs = pick("requestTimeoutMs");
  return {
    headersTimeoutMs: Math.min(pick("headersTimeoutMs"), requestTimeoutMs),
    requestTimeoutMs,
    keepAliveTimeoutMs: pick("keepAliveTimeoutMs"),
    maxHeaderBytes: pick("maxHeaderBytes"),
    checkIntervalMs: pick("checkIntervalMs"),
  };
}

/** The limits as node:http server options. */
export function serverLimits(l: WebhookLimits): NonNullable<HttpServerOptions["limits"]> {
  return {
    headersTimeout: l.headersTimeoutMs,
    requestTimeout: l.requestTimeoutMs,
    keepAliveTimeout: l.keepAliveTimeoutMs,
    maxHeaderSize: l.maxHeaderBytes,
    connectionsCheckingInterval: l.checkIntervalMs,
  };
}
