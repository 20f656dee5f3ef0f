/**
 * The AWS SDK clients the credential providers make (STS for AssumeRole and
 * AssumeRoleWithWebIdentity, SSO) send through {@link ScmHttpClient} with this request handler, so
 * their calls are counted, time out, paused after throttling, carry the controller's User-Agent and
 * go through the SCM proxy like the CodeCommit calls. SDK service errors become {@link AwsApiError}s (`Code: message`).
 */
import { Readable } from "node:stream";
import type { HttpRequest, HttpResponse } from "@smithy/protocol-http";
import type { ScmCaller, ScmHttpClient } from "../http.js";
import { AwsApiError } from "./errors.js";

/** Where SDK calls are sent from. */
export interface SdkCallTarget {
  readonly http: ScmHttpClient;
  readonly caller?: ScmCaller;
  readonly signal?: AbortSignal;
}

function urlOf(req: HttpRequest): string {
  const query = new URLSearchParams();
  for (const [k, v] of Object.entries(req.query ?? {})) for (const x of Array.isArray(v) ? v : [v ?? ""]) query.append(k, x);
  const q = query.toString();
  return `${req.protocol}//${req.hostname}${req.port === undefined ? "" : `:${String(req.port)}`}${req.path}${q === "" ? "" : `?${q}`}`;
}

function bodyOf(body: unknown): string {
  if (body === undefined || body === null) return "";
  if (typeof body === "string") return body;
  if (body instanceof Uint8Array) return Buffer.from(body).toString("utf8");
  throw new Error("AWS SDK request body is a stream; only buffered bodies are sent");
}

/**
 * SDK headers the SCM client sets itself: `Host`, and `User-Agent`, so STS calls name the controller
 * like every SCM request (the SDK still names itself in `X-Amz-User-Agent`; neither is signed).
 */
const DROPPED = new Set(["host", "user-agent"]);

/** What the SDK clients call to send a request (`clientConfig.requestHandler`). */
export interface SdkRequestHandler {
  handle(req: HttpRequest): Promise<{ response: HttpResponse }>;
}

/** An SDK request handler over the SCM HTTP client; `service` names the calls in metrics. */
export function sdkRequestHandler(t: SdkCallTarget, service: string): SdkRequestHandler {
  return {
    async handle(req: HttpRequest): Promise<{ response: HttpResponse }> {
      const body = bodyOf(req.body);
      const headers = Object.fromEntries(Object.entries(req.headers).filter(([k]) => !DROPPED.has(k.toLowerCase())));
      const action = new URLSearchParams(body).get("Action");
      const res = await t.http.request({
        provider: "awsCodeCommit",
        url: urlOf(req),
        method: req.method,
        headers,
        body,
        endpoint: `${service}:${action ?? req.path}`,
        ...(t.caller === undefined ? {} : { caller: t.caller }),
        ...(t.signal === undefined ? {} : { signal: t.signal }),
      });
      // The SDK's module (and @smithy/core under it) loads with the first call, as the SDK does.
      const { HttpResponse } = await import("@smithy/protocol-http");
      return {
        response: new HttpResponse({ statusCode: res.status, headers: { ...res.headers }, body: Readable.from([Buffer.from(res.body)]) }),
      };
    },
  };
}

/** An SDK service error as an {@link AwsApiError} with the code AWS sent (`InvalidIdentityToken`, not the SDK's class name). */
export function fromSdkError(err: unknown): unknown {
  if (!(err instanceof Error)) return err;
  const e = err as { $metadata?: { httpStatusCode?: number }; Code?: unknown };
  const status = e.$metadata?.httpStatusCode;
  return status === undefined ? err : new AwsApiError(status, typeof e.Code === "string" && e.Code !== "" ? e.Code : err.name, err.message);
}
