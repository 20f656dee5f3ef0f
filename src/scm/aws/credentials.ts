/**
 * The credentials CodeCommit calls are signed with: the controller's own (from its credential
 * source, the SDK's default chain), and, with the generator's `role`, STS AssumeRole credentials
 * obtained with them (`fromTemporaryCredentials`, with Argo CD's session name `aws-go-sdk-<ns>` and
 * 15 minutes, as aws-sdk-go-v2's AssumeRoleProvider sends). Both are kept in the client's long-lived
 * cache and renewed a minute before they expire, by the injected clock. The SDK's STS calls go
 * through the SCM HTTP client ({@link sdkRequestHandler}).
 */
import { wrap } from "../api.js";
import { awsEndpoint, type AwsCredentials, type AwsSdkClientConfig, type AwsTarget } from "./client.js";
import { fromSdkError, sdkRequestHandler } from "./sdk-transport.js";

/** STS AssumeRole's default duration in the AWS SDKs (15 minutes). */
export const ASSUME_ROLE_SECONDS = 900;

/** Cached credentials are renewed this long before they expire. */
const RENEW_BEFORE_MS = 60_000;

interface Expiring {
  readonly credentials: AwsCredentials;
  readonly expiresAtMs: number;
}

/** The SDK client configuration for calls made on behalf of `t`. */
export function sdkClientConfig(t: AwsTarget): AwsSdkClientConfig {
  return {
    region: t.region,
    endpoint: awsEndpoint(t.settings, "sts", t.region),
    requestHandler: sdkRequestHandler(t, "sts"),
    maxAttempts: 1,
  };
}

/** Credentials from the client's long-lived cache while they have over a minute left, else fresh. */
async function cached(t: AwsTarget, key: string, fetch: () => Promise<AwsCredentials>): Promise<AwsCredentials> {
  const now = t.http.clock.now();
  const hit = t.http.derived.get<Expiring>(key, "", now, Number.POSITIVE_INFINITY);
  if (hit !== undefined && hit.expiresAtMs - now > RENEW_BEFORE_MS) return hit.credentials;
  const credentials = await fetch().catch((err: unknown) => {
    throw fromSdkError(err);
  });
  t.http.derived.set(key, "", now, { credentials, expiresAtMs: credentials.expiration?.getTime() ?? Number.POSITIVE_INFINITY });
  return credentials;
}

/** The controller's own credentials (cached). */
export function baseCredentials(t: AwsTarget): Promise<AwsCredentials> {
  const source = t.settings.credentials;
  if (source === undefined) return Promise.reject(new Error("no AWS credentials"));
  return cached(t, `aws-base ${awsEndpoint(t.settings, "sts", t.region)} ${t.region}`, () => source(sdkClientConfig(t))()).catch(
    (err: unknown) => {
      throw wrap("error getting AWS credentials", err);
    },
  );
}

/** aws-sdk-go-v2's default AssumeRole session name: `aws-go-sdk-` and the time in nanoseconds. */
export function sessionName(nowMs: number): string {
  return `aws-go-sdk-${String(nowMs)}000000`;
}

/** STS AssumeRole of `roleArn` with `base` (cached per base key and role). */
export function assumeRoleCached(t: AwsTarget, base: AwsCredentials, roleArn: string): Promise<AwsCredentials> {
  const key = `aws-assume-role ${awsEndpoint(t.settings, "sts", t.region)} ${base.accessKeyId} ${roleArn}`;
  // The AWS SDK is loaded on first use: most installs never call AWS.
  return cached(t, key, async () =>
    (await import("@aws-sdk/credential-providers")).fromTemporaryCredentials({
      masterCredentials: base,
      params: { RoleArn: roleArn, RoleSessionName: sessionName(t.http.clock.now()), DurationSeconds: ASSUME_ROLE_SECONDS },
      clientConfig: sdkClientConfig(t),
    })(),
  );
}
