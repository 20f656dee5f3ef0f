/**
 * AWS APIs over the SCM HTTP client, without an SDK: the JSON 1.1 protocol (CodeCommit, Resource
 * Groups Tagging) and the STS query protocol (AssumeRole signed with SigV4; AssumeRoleWithWebIdentity,
 * whose token is its proof), every other request signed with SigV4. Requests
 * go through {@link ScmHttpClient}, so they are counted, paused after throttling and sent through
 * the SCM proxy like every other provider's. Error texts are `Code: message` without the request id,
 * so a failing generator writes the same status message on every retry.
 */
import type { ScmCaller, ScmHttpClient, ScmResponse } from "../http.js";
import { wrap } from "../api.js";
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
  /** `AWS_ROLE_ARN` with `AWS_WEB_IDENTITY_TOKEN_FILE` (EKS IRSA): used when there are no static credentials. */
  readonly webIdentity?: WebIdentity;
}

/** A role assumed with a web identity token (STS AssumeRoleWithWebIdentity, unsigned). */
export interface WebIdentity {
  readonly roleArn: string;
  /** Reads the current token (the file is rotated, so it is read on each exchange). */
  readonly token: () => Promise<string>;
  /** `AWS_ROLE_SESSION_NAME`; a generated name when absent. */
  readonly sessionName?: string;
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

/** Signs (unless `creds` is undefined) and sends one POST to `/` of a service; resolves with any status but a throttling refusal. */
async function send(
  t: AwsTarget,
  creds: AwsCredentials | undefined,
  o: { service: AwsService; operation: string; headers: Record<string, string>; body: string },
): Promise<{ url: string; res: ScmResponse }> {
  const url = `${awsEndpoint(t.settings, o.service, t.region)}/`;
  const sig =
    creds === undefined
      ? { headers: {} }
      : signV4({ method: "POST", url, headers: o.headers, body: o.body }, creds, {
          region: t.region,
          service: o.service,
          nowMs: t.http.clock.now(),
        });
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
export async function awsJson(
  t: AwsTarget,
  creds: AwsCredentials,
  o: { service: "codecommit" | "tagging"; target: string; input: unknown },
): Promise<unknown> {
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
  return raw
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">")
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&amp;/g, "&");
}

/** Temporary credentials and when they expire (ms since the epoch). */
export interface ExpiringCredentials {
  readonly credentials: AwsCredentials;
  readonly expiresAtMs: number;
}

/** STS AssumeRole's default duration in the AWS SDKs (15 minutes). */
export const ASSUME_ROLE_SECONDS = 900;

/**
 * Calls an STS action (query protocol) with `params`, signed with `base` (unsigned when undefined,
 * as AssumeRoleWithWebIdentity is), and reads the credentials of the answer.
 */
async function stsCredentials(
  t: AwsTarget,
  base: AwsCredentials | undefined,
  action: string,
  params: Record<string, string>,
): Promise<ExpiringCredentials> {
  const form = new URLSearchParams({ Action: action, DurationSeconds: String(ASSUME_ROLE_SECONDS), ...params, Version: "2011-06-15" });
  const headers = { "Content-Type": "application/x-www-form-urlencoded; charset=utf-8" };
  const { res } = await send(t, base, { service: "sts", operation: action, headers, body: form.toString() });
  if (res.status < 200 || res.status > 299)
    throw new AwsApiError(res.status, xmlText(res.body, "Code") || `HTTP ${String(res.status)}`, xmlText(res.body, "Message"));
  const credentials: AwsCredentials = {
    accessKeyId: xmlText(res.body, "AccessKeyId"),
    secretAccessKey: xmlText(res.body, "SecretAccessKey"),
    sessionToken: xmlText(res.body, "SessionToken"),
  };
  const expiresAtMs = Date.parse(xmlText(res.body, "Expiration"));
  if (credentials.accessKeyId === "" || credentials.secretAccessKey === "" || Number.isNaN(expiresAtMs)) {
    throw new ScmApiError(res.status, `${action}: no credentials in the response`);
  }
  return { credentials, expiresAtMs };
}

function sessionName(t: AwsTarget): string {
  return `argocd-applicationset-${String(t.http.clock.now())}`;
}

/** Calls STS AssumeRole (SigV4-signed with `base`). */
export function assumeRole(t: AwsTarget, base: AwsCredentials, roleArn: string): Promise<ExpiringCredentials> {
  return stsCredentials(t, base, "AssumeRole", { RoleArn: roleArn, RoleSessionName: sessionName(t) });
}

/** Calls STS AssumeRoleWithWebIdentity (unsigned; the token is the proof). */
export async function assumeRoleWithWebIdentity(t: AwsTarget, w: WebIdentity): Promise<ExpiringCredentials> {
  const token = await w.token();
  return stsCredentials(t, undefined, "AssumeRoleWithWebIdentity", {
    RoleArn: w.roleArn,
    RoleSessionName: w.sessionName ?? sessionName(t),
    WebIdentityToken: token.trim(),
  });
}

/** Assumed-role credentials are renewed this long before they expire. */
const RENEW_BEFORE_MS = 60_000;

/** Temporary credentials from the client's long-lived cache while they have over a minute left, else fresh. */
async function cached(t: AwsTarget, key: string, fetch: () => Promise<ExpiringCredentials>): Promise<AwsCredentials> {
  const now = t.http.clock.now();
  const hit = t.http.derived.get<ExpiringCredentials>(key, "", now, Number.POSITIVE_INFINITY);
  if (hit !== undefined && hit.expiresAtMs - now > RENEW_BEFORE_MS) return hit.credentials;
  const fresh = await fetch();
  t.http.derived.set(key, "", now, fresh);
  return fresh.credentials;
}

/** AssumeRole with `base`, cached. */
export function assumeRoleCached(t: AwsTarget, base: AwsCredentials, roleArn: string): Promise<AwsCredentials> {
  return cached(t, `aws-assume-role ${awsEndpoint(t.settings, "sts", t.region)} ${base.accessKeyId} ${roleArn}`, () =>
    assumeRole(t, base, roleArn),
  );
}

/** Whether the settings hold any credential source. */
export function hasAwsCredentials(settings: AwsSettings): boolean {
  return settings.credentials !== undefined || settings.webIdentity !== undefined;
}

/** The controller's own credentials: the static ones, else the web identity's (cached). */
export function baseCredentials(t: AwsTarget): Promise<AwsCredentials> {
  const { credentials, webIdentity } = t.settings;
  if (credentials !== undefined) return Promise.resolve(credentials);
  if (webIdentity === undefined) return Promise.reject(new Error("no AWS credentials"));
  return cached(t, `aws-web-identity ${awsEndpoint(t.settings, "sts", t.region)} ${webIdentity.roleArn}`, () =>
    assumeRoleWithWebIdentity(t, webIdentity),
  ).catch((err: unknown) => {
    throw wrap(`error assuming role ${webIdentity.roleArn} with a web identity`, err);
  });
}
