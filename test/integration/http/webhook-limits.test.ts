/**
 * The webhook server's request limits against real raw TCP clients that misbehave: one sends its
 * headers a line at a time and never finishes, one stalls its body, one leaves its keep-alive
 * connection idle, one sends oversized headers. Limits are set small; the tests assert that the
 * server cuts the connection off (and what it answered), never how long it took.
 */
import { connect, type Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { SystemClock } from "../../../src/clock/index.js";
import { resolveWebhookLimits } from "../../../src/webhook/limits.js";
import { startWebhookServer, WEBHOOK_PATH, type WebhookServer } from "../../../src/webhook/server.js";
import { capturedLogger } from "../../support/captured-logger.js";
import { signedFixture, TEST_SECRETS } from "../../support/webhook-payloads.js";

const LIMITS = { headersTimeoutMs: 300, requestTimeoutMs: 600, keepAliveTimeoutMs: 200, maxHeaderBytes: 2_048, checkIntervalMs: 50 };

let running: WebhookServer | undefined;
const opened: Socket[] = [];
afterEach(async () => {
  for (const s of opened.splice(0)) s.destroy();
  await running?.close();
  running = undefined;
});

async function server(): Promise<{ server: WebhookServer; logs: Array<Record<string, unknown>> }> {
  const { lines: logs, logger } = capturedLogger("debug");
  running = await startWebhookServer({
    addr: "127.0.0.1:0",
    parallelism: 1,
    settings: () => Promise.resolve({ secrets: TEST_SECRETS, maxPayloadBytes: 1024 * 1024 }),
    appSets: () => Promise.resolve([]),
    refresh: () => Promise.resolve(),
    logger,
    clock: new SystemClock(),
    limits: LIMITS,
  });
  return { server: running, logs };
}

/** A raw TCP client: what it received, and a promise that settles when the server closes the connection. */
interface RawClient {
  readonly socket: Socket;
  received(): string;
  readonly closed: Promise<string>;
}

async function rawClient(s: WebhookServer): Promise<RawClient> {
  const socket = connect(s.port, "127.0.0.1");
  opened.push(socket);
  await new Promise<void>((resolve) => socket.once("connect", resolve));
  let text = "";
  socket.on("data", (d: Buffer) => (text += d.toString("utf8")));
  socket.on("error", () => undefined);
  const closed = new Promise<string>((resolve) => socket.once("close", () => resolve(text)));
  return { socket, received: () => text, closed };
}

/** Writes `line` every `everyMs` until the connection closes. */
function drip(c: RawClient, line: string, everyMs: number): void {
  const timer = setInterval(() => {
    if (!c.socket.destroyed) c.socket.write(line);
  }, everyMs);
  void c.closed.finally(() => clearInterval(timer));
}

describe("the webhook server's request limits", () => {
  it("cuts off a client that sends its headers slowly, answering 408", async () => {
    const { server: s } = await server();
    const c = await rawClient(s);
    c.socket.write(`POST ${WEBHOOK_PATH} HTTP/1.1\r\nHost: webhook.test\r\n`);
    drip(c, "X-Slow: 1\r\n", 20);
    expect(await c.closed).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
  });

  it("cuts off a client that stalls its body, answering 408, and logs the cut", async () => {
    const { server: s, logs } = await server();
    const c = await rawClient(s);
    c.socket.write(
      `POST ${WEBHOOK_PATH} HTTP/1.1\r\nHost: webhook.test\r\nContent-Type: application/json\r\nX-GitHub-Event: push\r\nContent-Length: 1000\r\n\r\n{"ref":`,
    );
    expect(await c.closed).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
    await expect.poll(() => logs.some((l) => l["msg"] === "webhook request cut off before its body was read")).toBe(true);
  });

  it("closes an idle keep-alive connection after a complete request", async () => {
    const { server: s } = await server();
    const c = await rawClient(s);
    const req = signedFixture("github-push");
    const body = Buffer.from(req.body);
    const head = Object.entries({ ...req.headers, Host: "webhook.test", "Content-Length": String(body.length), Connection: "keep-alive" })
      .map(([k, v]) => `${k}: ${v}\r\n`)
      .join("");
    c.socket.write(Buffer.concat([Buffer.from(`POST ${WEBHOOK_PATH} HTTP/1.1\r\n${head}\r\n`), body]));
    const text = await c.closed;
    expect(text).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(text).toMatch(/\r\nConnection: keep-alive\r\n/i);
  });

  it("refuses headers larger than the limit with 431", async () => {
    const { server: s } = await server();
    const c = await rawClient(s);
    c.socket.write(`POST ${WEBHOOK_PATH} HTTP/1.1\r\nHost: webhook.test\r\nX-Big: ${"a".repeat(4_096)}\r\n\r\n`);
    expect(await c.closed).toMatch(/^HTTP\/1\.1 431 /);
  });

  it("still accepts a signed event sent at normal speed", async () => {
    const { server: s } = await server();
    const req = signedFixture("github-push");
    const res = await fetch(`${s.url}${WEBHOOK_PATH}`, { method: "POST", headers: req.headers, body: req.body });
    expect({ status: res.status, text: await res.text() }).toEqual({ status: 200, text: "" });
  });
});

describe("resolveWebhookLimits", () => {
  it.each([
    // name; given limits; resolved limits
    {
      name: "fills every absent limit with its default",
      given: {},
      want: {
        headersTimeoutMs: 10_000,
        requestTimeoutMs: 30_000,
        keepAliveTimeoutMs: 5_000,
        maxHeaderBytes: 16_384,
        checkIntervalMs: 1_000,
      },
    },
    {
      name: "replaces a non-positive limit with its default",
      given: { requestTimeoutMs: 0, keepAliveTimeoutMs: -1 },
      want: { requestTimeoutMs: 30_000, keepAliveTimeoutMs: 5_000 },
    },
    {
      name: "keeps the header limit within the request limit",
      given: { headersTimeoutMs: 20_000, requestTimeoutMs: 15_000 },
      want: { headersTimeoutMs: 15_000, requestTimeoutMs: 15_000 },
    },
  ])("$name", ({ given, want }) => {
    expect(resolveWebhookLimits(given)).toMatchObject(want);
  });
});
