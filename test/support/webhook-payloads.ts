/**
 * Webhook test support shared by the unit, integration and end-to-end tests: the payload fixtures
 * of test/fixtures/webhook/ (shaped as each provider's documented webhook payloads) and requests
 * signed the way each provider signs them.
 */
import { randomUUID } from "node:crypto";
import { readFileSync } from "node:fs";
import { hmacSha256Hex } from "../../src/webhook/verify.js";
import type { ProviderName, WebhookSecrets } from "../../src/webhook/types.js";

/** Secrets for every provider. */
export const TEST_SECRETS = {
  github: "github-secret",
  gitlab: "gitlab-token",
  azureDevOps: { username: "hook", password: "azure-password" },
  bitbucketServer: "bitbucket-server-secret",
  bitbucketUuid: "{8f0e3c0e-6f4c-4a0c-9d5e-0b8f6c3f1a2b}",
  bitbucketSecret: "bitbucket-cloud-secret",
  gitea: "gitea-secret",
} as const satisfies WebhookSecrets;

/** The fixture names of test/fixtures/webhook/. */
export type FixtureName =
  | "github-push"
  | "github-pull-request"
  | "gitlab-push"
  | "gitlab-merge-request"
  | "azuredevops-push"
  | "azuredevops-pull-request"
  | "bitbucketserver-push"
  | "bitbucketserver-pull-request"
  | "bitbucket-push"
  | "bitbucket-pull-request"
  | "gitea-push"
  | "gitea-pull-request";

/** A fixture as parsed JSON (a fresh copy each call, free to modify). */
export function fixture(name: FixtureName): Record<string, unknown> {
  return JSON.parse(readFileSync(new URL(`../fixtures/webhook/${name}.json`, import.meta.url), "utf8")) as Record<string, unknown>;
}

/** The event header value each fixture is sent with. */
export const FIXTURE_EVENTS: Readonly<Record<FixtureName, { provider: ProviderName; event: string }>> = {
  "github-push": { provider: "github", event: "push" },
  "github-pull-request": { provider: "github", event: "pull_request" },
  "gitlab-push": { provider: "gitlab", event: "Push Hook" },
  "gitlab-merge-request": { provider: "gitlab", event: "Merge Request Hook" },
  "azuredevops-push": { provider: "azuredevops", event: "git.push" },
  "azuredevops-pull-request": { provider: "azuredevops", event: "git.pullrequest.created" },
  "bitbucketserver-push": { provider: "bitbucketserver", event: "repo:refs_changed" },
  "bitbucketserver-pull-request": { provider: "bitbucketserver", event: "pr:opened" },
  "bitbucket-push": { provider: "bitbucket", event: "repo:push" },
  "bitbucket-pull-request": { provider: "bitbucket", event: "pullrequest:created" },
  "gitea-push": { provider: "gitea", event: "push" },
  "gitea-pull-request": { provider: "gitea", event: "pull_request" },
};

/** A request body and the headers its provider would send with it. */
export interface SignedRequest {
  headers: Record<string, string>;
  body: Buffer;
}

/** Headers naming the event, without credentials. */
export function eventHeaders(provider: ProviderName, event: string): Record<string, string> {
  const json = { "content-type": "application/json" };
  switch (provider) {
    case "github":
      return { ...json, "x-github-event": event, "x-github-delivery": randomUUID() };
    case "gitea":
      return { ...json, "x-gitea-event": event, "x-gogs-event": event, "x-github-event": event, "x-gitea-delivery": randomUUID() };
    case "gitlab":
      return { ...json, "x-gitlab-event": event };
    case "azuredevops":
      return { ...json, "x-vss-activityid": randomUUID() };
    case "bitbucketserver":
      return { ...json, "x-event-key": event, "x-request-id": randomUUID() };
    case "bitbucket":
      return { ...json, "x-event-key": event, "x-request-uuid": randomUUID() };
  }
}

/** The credentials headers of a body under `secrets`, as the provider computes them. */
export function credentialHeaders(provider: ProviderName, body: Buffer, secrets: WebhookSecrets): Record<string, string> {
  const hmac = (key: string | undefined): string => hmacSha256Hex(key ?? "", body);
  switch (provider) {
    case "github":
      return { "x-hub-signature-256": `sha256=${hmac(secrets.github)}` };
    case "gitea":
      return { "x-gitea-signature": hmac(secrets.gitea) };
    case "gitlab":
      return { "x-gitlab-token": secrets.gitlab ?? "" };
    case "azuredevops": {
      const a = secrets.azureDevOps ?? { username: "", password: "" };
      return { authorization: `Basic ${Buffer.from(`${a.username}:${a.password}`).toString("base64")}` };
    }
    case "bitbucketserver":
      return { "x-hub-signature": `sha256=${hmac(secrets.bitbucketServer)}` };
    case "bitbucket":
      return {
        "x-hook-uuid": secrets.bitbucketUuid ?? "",
        ...(secrets.bitbucketSecret ? { "x-hub-signature": `sha256=${hmac(secrets.bitbucketSecret)}` } : {}),
      };
  }
}

/** A request carrying `payload`, signed under `secrets` (default {@link TEST_SECRETS}). */
export function signed(provider: ProviderName, event: string, payload: unknown, secrets: WebhookSecrets = TEST_SECRETS): SignedRequest {
  const body = Buffer.from(typeof payload === "string" ? payload : JSON.stringify(payload));
  return { headers: { ...eventHeaders(provider, event), ...credentialHeaders(provider, body, secrets) }, body };
}

/** A fixture, possibly modified, signed as its provider sends it. */
export function signedFixture(
  name: FixtureName,
  edit: (p: Record<string, unknown>) => void = () => {},
  secrets?: WebhookSecrets,
): SignedRequest {
  const p = fixture(name);
  edit(p);
  const { provider, event } = FIXTURE_EVENTS[name];
  return signed(provider, event, p, secrets);
}
