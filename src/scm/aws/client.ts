/**
 * AWS APIs over the SCM HTTP client: the JSON 1.1 protocol (CodeCommit, Resource Groups Tagging),
 * every request signed with the AWS SDK's SigV4 signer. Requests go through {@link ScmHttpClient},
 * so they are counted, paused after throttling and sent through the SCM proxy like every other
 * provider's. Error texts are `Code: message` without the request id, so a failing generator
 * writes the same status message on every retry.
 */
import type { AwsCredentialIdentityProvider } from "@smithy/types";
import type { ScmCaller, ScmHttpClient } from "../http.js";
import { ScmApiError } from "../types.js";
import { AwsApiError } from "./errors.js";
import type { SdkRequestHandler } from "./sdk-transport.js";
import { signRequest, type AwsCredentials } from "./signer.js";
import { trimTrailingSlashes } from "../../trim.js";

export { AwsApiError } from "./errors.js";
export type { AwsCredentials } from "./signer.js";

/**
 * The configuration the SDK clients of a credential provider get (STS for AssumeRole and web
 * identities): the region, the STS endpoint, a request handler over the SCM HTTP client, and one
 * attempt (the SCM HTTP client handles throttling itself).
 */
export interface AwsSdkClientConfig {
  readonly region: string;
  readonly endpoint: string;
  readonly requestHandler: SdkRequestHandler;
  readonly maxAttempts: number;
}

/** Makes the controller's credential provider for an SDK client configuration (the SDK's default chain in the controller). */
export type AwsCredentialSource = (clientConfig: AwsSdkClientConfig) => AwsCredentialIdentityProvider;

/** The AWS settings of the controller process. */
export interface AwsSettings {
  /** The controller's own credentials; absent, every call fails with "no AWS credentials". */
  readonly credentials?: AwsCredentialSource;
  /** `AWS_REGION`, else `AWS_DEFAULT_REGION`. */
  readonly region?: string;
  /** `AWS_ENDPOINT_URL_<SERVICE>`, else `AWS_ENDPOINT_URL`: endpoint overrides per service. */
  readonly endpoints?: Readonly<Partial<Record<AwsService, string>>>;
}

/** The services the CodeCommit provider calls (their signing names). */
export type AwsService = "codecommit" | "tagging" | "sts";

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
  if (override !== undefined && override !== "") return trimTrailingSlashes(override);
  return `https://${service}.${region}.amazonaws.com${region.startsWith("cn-") ? ".cn" : ""}`;
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

/** Calls one JSON 1.1 operation (`X-Amz-Target: <prefix>.<operation>`), signed with `creds`, and parses the answer. */
export async function awsJson(
  t: AwsTarget,
  creds: AwsCredentials,
  o: { service: "codecommit" | "tagging"; target: string; input: unknown },
): Promise<unknown> {
  const operation = o.target.split(".").pop() ?? o.target;
  const url = `${awsEndpoint(t.settings, o.service, t.region)}/`;
  const body = JSON.stringify(o.input);
  const own = { "Content-Type": "application/x-amz-json-1.1", "X-Amz-Target": o.target };
  const headers = await signRequest({ method: "POST", url, headers: own, body }, creds, {
    region: t.region,
    service: o.service,
    nowMs: t.http.clock.now(),
  });
  const res = await t.http.request({
    provider: "awsCodeCommit",
    url,
    method: "POST",
    headers,
    body,
    endpoint: `${o.service}:${operation}`,
    ...(t.caller === undefined ? {} : { caller: t.caller }),
    ...(t.signal === undefined ? {} : { signal: t.signal }),
  });
  if (res.status < 200 || res.status > 299) throw jsonError(res.status, res.body);
  try {
    return JSON.parse(res.body === "" ? "{}" : res.body) as unknown;
  } catch {
    throw new ScmApiError(res.status, `POST ${url} ${operation}: invalid JSON in response`);
  }
}
