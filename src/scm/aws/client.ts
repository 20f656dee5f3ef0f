/**
 * AWS APIs over the SCM HTTP client, without an SDK: the JSON 1.1 protocol (CodeCommit, Resource
 * Groups Tagging) and the STS query protocol (AssumeRole), each request signed with SigV4. Requests
 * go through {@link ScmHttpClient}, so they are counted, paused after throttling and sent through
 * the SCM proxy like every other provider's. Error texts are `Code: message` without the request id,
 * so a failing generator writes the same status message on every retry.
 */
import type { ScmCaller, ScmHttpClient, ScmResponse } from "../http.js";
import { ScmApiError } from "../types.js";
import { signV4, type AwsCredentials } from "./sigv4.js";

/** The AWS settings of the controller process (the standard environment variables). */
export interface AwsSettings {
  /** `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `AWS_SESSION_TOKEN`. */
  readonly credentials?: AwsCredentials;
  /** `AWS_REGION`, else `AWS_DEFAULT_REGION`. */
  readonly region?: string;
  /** `AWS_ENDPOINT_URL_<SERVICE>`, else `AWS_ENDPOINT_URL`: endpoint overrides per service. */
  readonly endpoints?: Readonly<Partial<Record<AwsService, string>>>;
}

/** The services the CodeCommit provider calls (their signing names). */
export type AwsService = "codecommit" | "tagging" | "sts";

/** An AWS API answered with an error (`code` is the exception name, e.g. `RepositoryDoesNotExistException`). */
export class AwsApiError extends ScmApiError {
  constructor(
    status: number,
    readonly code: string,
    message: string,
  ) {
    super(status, message === "" ? code : `${code}: ${message}`);
  }
}

/** Where and as whom AWS calls are made. */
export interface AwsTarget {
  readonly http: ScmHttpClient;
  readonly region: string;
  readonly settings: AwsSettings;
  readonly caller?: ScmCaller;
  readonly signal?: AbortSignal;
}

/** The endpoint of a service in a region (an override wins). */
export function awsEndpoint(settings: AwsSettings, service: AwsService, region: string): string {
  const override = settings.endpoints?.[service];
  if (override !== undefined && override !== "") return override.replace(/\/+$/, "");
  return `https://${service}.${region}.amazonaws.com${region.startsWith("cn-") ? ".cn" : ""}`;
}

/** Signs and sends one POST to `/` of a service; resolves with any status but a throttling refusal. */
async function send(t: AwsTarget, creds: AwsCredentials, o: { service: AwsService; operation: string; headers: Record<string, string>; body: string }): Promise<{ url: string; res: ScmResponse }> {
  const url = `${awsEndpoint(t.settings, o.service, t.region)}/`;
  const sig = signV4({ method: "POST", url, headers: o.headers, body: o.body }, creds, { region: t.region, service: o.service, nowMs: t.http.clock.now() });
  const res = await t.http.request({
    provider: "awsCodeCommit",
    url,
    method: "POST",
    headers: { ...o.headers, ...sig.headers },
    body: o.body,
    endpoint: `${o.service}:${o.operation}`,
    ...(t.caller === undefined ? {} : { caller: t.caller }),
    ...(t.signal === undefined ? {} : { signal: t.signal }),
  });
  return { url, res };
}

function jsonError(status: number, body: string): AwsApiError {
  let code = `HTTP ${String(status)}`;
  let message = body.trim().slice(0, 200);
  try {
    const parsed = JSON.parse(body) as Record<string, unknown>;
    if (typeof parsed["__type"] === "string") code = parsed["__type"].split("#").pop() ?? code;
    const m = parsed["message"] ?? parsed["Message"];
    message = typeof m === "string" ? m : "";
  } catch {
    // not JSON: keep the raw text
  }
  return new AwsApiError(status, code, message);
}

/** Calls one JSON 1.1 operation (`X-Amz-Target: <prefix>.<operation>`) and parses the answer. */
export async function awsJson(t: AwsTarget, creds: AwsCredentials, o: { service: "codecommit" | "tagging"; target: string; input: unknown }): Promise<unknown> {
  const operation = o.target.split(".").pop() ?? o.target;
  const headers = { "Content-Type": "application/x-amz-json-1.1", "X-Amz-Target": o.target };
  const { url, res } = await send(t, creds, { service: o.service, operation, headers, body: JSON.stringify(o.input) });
  if (res.status < 200 || res.status > 299) throw jsonError(res.status, res.body);
  try {
    return JSON.parse(res.body === "" ? "{}" : res.body) as unknown;
  } catch {
    throw new ScmApiError(res.status, `POST ${url} ${operation}: invalid JSON in response`);
  }
}

function xmlText(xml: string, tag: string): string {
  const m = new RegExp(`<${tag}>([^<]*)</${tag}>`).exec(xml);
  const raw = m?.[1] ?? "";
  return raw.replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&quot;/g, '"').replace(/&apos;/g, "'").replace(/&amp;/g, "&");
}

/** Temporary credentials and when they expire (ms since the epoch). */
export interface ExpiringCredentials {
  readonly credentials: AwsCredentials;
  readonly expiresAtMs: number;
}

/** STS AssumeRole's default duration in the AWS SDKs (15 minutes). */
export const ASSUME_ROLE_SECONDS = 900;

/** Calls STS AssumeRole (query protocol, SigV4) with `base` credentials. */
export async function assumeRole(t: AwsTarget, base: AwsCredentials, roleArn: string): Promise<ExpiringCredentials> {
  const form = new URLSearchParams({
    Action: "AssumeRole",
    DurationSeconds: String(ASSUME_ROLE_SECONDS),
    RoleArn: roleArn,
    RoleSessionName: `argocd-applicationset-${String(t.http.clock.now())}`,
    Version: "2011-06-15",
  });
  const headers = { "Content-Type": "application/x-www-form-urlencoded; charset=utf-8" };
  const { res } = await send(t, base, { service: "sts", operation: "AssumeRole", headers, body: form.toString() });
  if (res.status < 200 || res.status > 299) throw new AwsApiError(res.status, xmlText(res.body, "Code") || `HTTP ${String(res.status)}`, xmlText(res.body, "Message"));
  const credentials: AwsCredentials = {
    accessKeyId: xmlText(res.body, "AccessKeyId"),
    secretAccessKey: xmlText(res.body, "SecretAccessKey"),
    sessionToken: xmlText(res.body, "SessionToken"),
  };
  const expiresAtMs = Date.parse(xmlText(res.body, "Expiration"));
  if (credentials.accessKeyId === "" || credentials.secretAccessKey === "" || Number.isNaN(expiresAtMs)) {
    throw new ScmApiError(res.status, "AssumeRole: no credentials in the response");
  }
  return { credentials, expiresAtMs };
}

/** Assumed-role credentials are renewed this long before they expire. */
const RENEW_BEFORE_MS = 60_000;

/** AssumeRole, answered from the client's long-lived cache while the credentials have over a minute left. */
export async function assumeRoleCached(t: AwsTarget, base: AwsCredentials, roleArn: string): Promise<AwsCredentials> {
  const key = `aws-assume-role ${awsEndpoint(t.settings, "sts", t.region)} ${base.accessKeyId} ${roleArn}`;
  const now = t.http.clock.now();
  const hit = t.http.derived.get<ExpiringCredentials>(key, "", now, Number.POSITIVE_INFINITY);
  if (hit !== undefined && hit.expiresAtMs - now > RENEW_BEFORE_MS) return hit.credentials;
  const fresh = await assumeRole(t, base, roleArn);
  t.http.derived.set(key, "", now, fresh);
  return fresh.credentials;
}
