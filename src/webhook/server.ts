/**
 * The webhook HTTP server (`--webhook-addr`, Argo CD's only route `/api/webhook`): it reads the
 * body up to `argocd-cm`'s `webhook.maxPayloadSizeMB` (413 beyond), hands the request to the pure
 * {@link receive}, logs every refusal with its status and reason, and queues accepted events for
 * {@link refreshAffected}. An accepted request is answered 200 with an empty body before its
 * refreshes run, as Argo CD does; a full queue answers 503. Refused requests are answered with
 * Argo CD's `Webhook processing failed: <reason>`. The server's request limits (header and request
 * timeouts, keep-alive timeout, header size) are {@link WebhookLimits}.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Clock } from "../clock/index.js";
import { errorMessage } from "../errors.js";
import type { Logger } from "../log/logger.js";
import { sendText, startHttpServer, type HttpEndpoint } from "../server/index.js";
import { resolveWebhookLimits, serverLimits, type WebhookLimits } from "./limits.js";
import { refreshAffected, type RefreshPorts } from "./process.js";
import { EventQueue } from "./queue.js";
import { receive } from "./receive.js";
import type { WebhookSettings } from "./secrets.js";
import type { WebhookEvent } from "./types.js";

/** The webhook route. */
export const WEBHOOK_PATH = "/api/webhook";

/** Options of {@link startWebhookServer}. */
export interface WebhookServerOptions extends RefreshPorts {
  /** Go-style listen address. */
  addr: string;
  /** Events processed at once. */
  parallelism: number;
  /** The current secrets and body limit. */
  settings: () => Promise<WebhookSettings>;
  logger: Logger;
  clock: Clock;
  /** Queue capacity (default Argo CD's 50 000). */
  queueCapacity?: number;
  /** Request limits (each absent one takes its default from limits.ts). */
  limits?: Partial<WebhookLimits>;
}

/** The running server. */
export interface WebhookServer extends HttpEndpoint {
  /** Resolves once every accepted event has been processed. */
  idle(): Promise<void>;
}

/** The body, or undefined once it grows past `max` bytes (the rest is discarded). */
export async function readBody(req: IncomingMessage, max: number): Promise<Buffer | undefined> {
  const declared = Number(req.headers["content-length"] ?? "0");
  if (declared > max) {
    req.resume();
    return undefined;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > max) {
      req.resume();
      return undefined;
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

function headerMap(req: IncomingMessage): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries(req.headers)) out[k] = Array.isArray(v) ? v.join(", ") : v;
  return out;
}

function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${String(c.charCodeAt(0))};`);
}

function refuse(res: ServerResponse, status: number, message: string): void {
  if (status === 413) res.setHeader("Connection", "close");
  sendText(res, status, `Webhook processing failed: ${escapeHtml(message)}\n`);
}

function handler(opts: WebhookServerOptions, queue: EventQueue<WebhookEvent>) {
  const log = opts.logger;
  return async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const remote = req.socket.remoteAddress;
    const settings = await opts.settings();
    let body: Buffer | undefined;
    try {
      body = req.method === "POST" ? await readBody(req, settings.maxPayloadBytes) : Buffer.alloc(0);
    } catch (err) {
      log.warn({ remote, error: errorMessage(err) }, "webhook request cut off before its body was read");
      return;
    }
    if (body === undefined) {
      log.warn({ status: 413, remote, limitBytes: settings.maxPayloadBytes }, "webhook refused: payload too large");
      return refuse(res, 413, `the payload is larger than ${String(settings.maxPayloadBytes)} bytes`);
    }
    const verdict = receive({ method: req.method ?? "", headers: headerMap(req), body }, settings.secrets);
    if (!verdict.ok) {
      log.warn(
        { status: verdict.status, provider: verdict.provider, reason: verdict.message, remote },
        `webhook refused: ${verdict.message}`,
      );
      return refuse(res, verdict.status, verdict.message);
    }
    if (verdict.event.kind === "ignored") {
      log.debug({ provider: verdict.provider, reason: verdict.event.reason }, "webhook event ignored");
      return sendText(res, 200, "");
    }
    if (!queue.offer(verdict.event)) {
      log.info({ provider: verdict.provider }, "Queue is full, discarding webhook payload");
      return sendText(res, 503, "Queue is full, discarding webhook payload\n");
    }
    log.info(
      {
        provider: verdict.provider,
        event: verdict.event.kind,
        repo: verdict.event.kind === "registry" ? verdict.event.repository : `${verdict.event.repo.owner}/${verdict.event.repo.name}`,
      },
      "webhook event accepted",
    );
    sendText(res, 200, "");
  };
}

/** Binds `addr` and serves the webhook route; rejects when the address cannot be bound. */
export async function startWebhookServer(opts: WebhookServerOptions): Promise<WebhookServer> {
  const queue = new EventQueue<WebhookEvent>({
    parallelism: opts.parallelism,
    ...(opts.queueCapacity === undefined ? {} : { capacity: opts.queueCapacity }),
    handle: async (event) => {
      try {
        await refreshAffected(event, opts, opts.logger);
      } catch (err) {
        opts.logger.error({ provider: event.provider, error: errorMessage(err) }, "Failed to list applicationsets");
      }
    },
  });
  const limits = serverLimits(resolveWebhookLimits(opts.limits));
  const endpoint = await startHttpServer({
    addr: opts.addr,
    routes: { [WEBHOOK_PATH]: handler(opts, queue) },
    logger: opts.logger,
    clock: opts.clock,
    name: "webhook",
    anyMethod: true,
    limits,
  });
  return {
    port: endpoint.port,
    url: endpoint.url,
    idle: () => queue.idle(),
    close: async () => {
      await endpoint.close();
      await queue.idle();
    },
  };
}
