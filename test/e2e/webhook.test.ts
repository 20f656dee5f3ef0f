/**
 * The webhook server of `appset controller` on the real control plane: the controller runs as a
 * process with `--webhook-addr` on a free loopback port, the secrets in `argocd-secret` and a 1 MiB
 * body limit in `argocd-cm`. A signed event of each provider (payloads shaped as the providers
 * document them) sets the refresh annotation on exactly the ApplicationSets whose generators it can
 * change, seen by a watch on the apiserver; forged, unsigned, oversized and malformed requests are
 * refused with a 4xx and a log line, and refresh nothing. The `argocd-secret` and `argocd-cm` examples
 * of docs/webhooks.md are the shapes this test applies.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Annotation } from "../../src/api/index.js";
import { resources, type KubeApiClient, type KubeObject } from "../../src/kube/index.js";
import {
  eventHeaders,
  fixture,
  FIXTURE_EVENTS,
  signed,
  signedFixture,
  TEST_SECRETS,
  type FixtureName,
  type SignedRequest,
} from "../support/webhook-payloads.js";
import { controllerNamespace, eventually, sharedClient, spawnController, type ControllerProcess } from "./support/controller.js";

let client: KubeApiClient;
let ns = "";
let otherNs = "";
let controller: ControllerProcess;
let webhookURL = "";
const watchStop = new AbortController();
/** `namespace/name` of every ApplicationSet the watch saw gain the refresh annotation. */
const annotated: string[] = [];
/** Whether each ApplicationSet carried the annotation in the last event the watch saw. */
const carries = new Map<string, boolean>();

const template = {
  metadata: { name: "{{ .name }}" },
  spec: {
    project: "default",
    source: { repoURL: "https://github.com/acme/guestbook", path: ".", targetRevision: "HEAD" },
    destination: { server: "https://kubernetes.default.svc", namespace: "default" },
  },
};
const tokenRef = { secretName: "scm-token", key: "token" };
const git = (repoURL: string, revision = "HEAD") => ({ git: { repoURL, revision, directories: [{ path: "apps/*" }] } });

/** The ApplicationSets of the test namespace, by name. */
const APPSETS: Record<string, unknown[]> = {
  "gh-git": [git("https://github.com/acme/guestbook.git")],
  "gh-pr": [{ pullRequest: { github: { owner: "acme", repo: "guestbook", tokenRef } } }],
  "gh-matrix": [{ matrix: { generators: [{ list: { elements: [{ name: "a" }] } }, git("git@github.com:acme/guestbook.git")] } }],
  "gl-git": [git("git@gitlab.example.com:acme/platform/guestbook.git")],
  "gl-mr": [{ pullRequest: { gitlab: { project: "15", api: "https://gitlab.example.com/", tokenRef } } }],
  "az-scm": [{ scmProvider: { azureDevOps: { organization: "acme", teamProject: "Platform", accessTokenRef: tokenRef } } }],
  "az-pr": [{ pullRequest: { azuredevops: { organization: "acme", project: "Platform", repo: "Guestbook", tokenRef } } }],
  "bbs-git": [git("https://bitbucket.example.com/scm/plat/guestbook.git")],
  "bbs-pr": [{ pullRequest: { bitbucketServer: { project: "PLAT", repo: "guestbook", api: "https://bitbucket.example.com/rest" } } }],
  "bb-git": [git("https://bitbucket.org/acme/guestbook.git", "main")],
  "bb-pr": [{ pullRequest: { bitbucket: { owner: "acme", repo: "guestbook" } } }],
  "gitea-git": [git("https://gitea.example.com/acme/guestbook", "develop")],
  "gitea-pr": [{ pullRequest: { gitea: { owner: "acme", repo: "guestbook", api: "https://gitea.example.com/", tokenRef } } }],
  "plugin-other": [{ plugin: { configMapRef: { name: "plugin" }, input: { parameters: { repo: "acme/another" } } } }],
  "list-only": [{ list: { elements: [{ name: "a" }] } }],
};

function appSet(name: string, namespace: string, generators: unknown[]): KubeObject {
  return {
    apiVersion: "argoproj.io/v1alpha1",
    kind: "ApplicationSet",
    metadata: { name, namespace },
    spec: { goTemplate: true, generators, template },
  };
}

function argoSecret(namespace: string): KubeObject {
  const s = TEST_SECRETS;
  const stringData = {
    "webhook.github.secret": s.github,
    "webhook.gitlab.secret": s.gitlab,
    "webhook.azuredevops.username": s.azureDevOps.username,
    "webhook.azuredevops.password": s.azureDevOps.password,
    "webhook.bitbucketserver.secret": s.bitbucketServer,
    "webhook.bitbucket.uuid": s.bitbucketUuid,
    "webhook.bitbucket.secret": s.bitbucketSecret,
    "webhook.gitea.secret": s.gitea,
  };
  return { apiVersion: "v1", kind: "Secret", metadata: { name: "argocd-secret", namespace }, stringData };
}

async function watchRefreshes(namespace: string, resourceVersion: string): Promise<void> {
  await client
    .watch(resources.ApplicationSets, { namespace, resourceVersion, signal: watchStop.signal }, (ev) => {
      const meta = ev.object.metadata;
      const key = `${meta?.namespace ?? ""}/${meta?.name ?? ""}`;
      const now = meta?.annotations?.[Annotation.ApplicationSetRefresh] === "true";
      if (now && carries.get(key) !== true) annotated.push(key);
      carries.set(key, now);
    })
    .catch(() => undefined);
}

beforeAll(async () => {
  client = sharedClient();
  ns = await controllerNamespace(client, "webhook");
  otherNs = await controllerNamespace(client, "webhook-other");
  await client.create(resources.Secrets, argoSecret(ns));
  await client.create(resources.ConfigMaps, {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "argocd-cm", namespace: ns },
    data: { "webhook.maxPayloadSizeMB": "1" },
  });
  for (const [name, gens] of Object.entries(APPSETS)) await client.create(resources.ApplicationSets, appSet(name, ns, gens));
  // the same repository, in a namespace this controller does not serve
  await client.create(resources.ApplicationSets, appSet("gh-git", otherNs, APPSETS["gh-git"]!));
  const list = await client.list(resources.ApplicationSets, { namespace: ns });
  void watchRefreshes(ns, list.resourceVersion);
  void watchRefreshes(otherNs, (await client.list(resources.ApplicationSets, { namespace: otherNs })).resourceVersion);
  controller = spawnController([
    "--namespace",
    ns,
    "--probe-addr",
    "127.0.0.1:0",
    "--metrics-addr",
    "127.0.0.1:0",
    "--webhook-addr",
    "127.0.0.1:0",
  ]);
  const serving = await eventually(
    "the webhook server",
    () => Promise.resolve(controller.logs.find((l) => l["msg"] === "serving" && l["server"] === "webhook")),
    60_000,
  );
  webhookURL = `http://127.0.0.1:${String(serving["port"])}/api/webhook`;
  await controller.waitForLog("caches synced, starting workers");
});

afterAll(async () => {
  watchStop.abort();
  if (controller.child.exitCode === null) {
    controller.child.kill("SIGTERM");
    await controller.exited;
  }
  for (const n of [ns, otherNs]) await client.delete(resources.Namespaces, { name: n }).catch(() => undefined);
  await client.transport.close();
});

async function send(req: { headers: Record<string, string>; body: Buffer }): Promise<{ status: number; text: string }> {
  const res = await fetch(webhookURL, { method: "POST", headers: req.headers, body: req.body });
  return { status: res.status, text: await res.text() };
}

const processedLines = (): Array<Record<string, unknown>> => controller.logs.filter((l) => l["msg"] === "webhook event processed");

/** Sends a request that must be accepted and resolves to the keys the controller refreshed for it. */
async function deliver(req: SignedRequest): Promise<string[]> {
  const before = processedLines().length;
  annotated.length = 0;
  expect(await send(req)).toEqual({ status: 200, text: "" });
  const line = await eventually("the event to be processed", () => Promise.resolve(processedLines()[before]));
  return (line["refreshed"] as string[]).slice().sort();
}

/** One provider event and the ApplicationSets it must refresh. */
interface EventRow {
  name: string;
  fixture: FixtureName;
  refreshed: string[];
}

describe("webhook events refresh the ApplicationSets they can affect", () => {
  it.each<EventRow>([
    { name: "a GitHub push", fixture: "github-push", refreshed: ["gh-git", "gh-matrix"] },
    { name: "a GitHub pull request", fixture: "github-pull-request", refreshed: ["gh-pr"] },
    { name: "a GitLab push", fixture: "gitlab-push", refreshed: ["gl-git"] },
    { name: "a GitLab merge request", fixture: "gitlab-merge-request", refreshed: ["gl-mr"] },
    { name: "an Azure DevOps push (SCM Provider of the team project)", fixture: "azuredevops-push", refreshed: ["az-scm"] },
    { name: "an Azure DevOps pull request", fixture: "azuredevops-pull-request", refreshed: ["az-pr"] },
    { name: "a Bitbucket Server push", fixture: "bitbucketserver-push", refreshed: ["bbs-git"] },
    { name: "a Bitbucket Server pull request", fixture: "bitbucketserver-pull-request", refreshed: ["bbs-pr"] },
    { name: "a Bitbucket Cloud push", fixture: "bitbucket-push", refreshed: ["bb-git"] },
    { name: "a Bitbucket Cloud pull request", fixture: "bitbucket-pull-request", refreshed: ["bb-pr"] },
    { name: "a Gitea push", fixture: "gitea-push", refreshed: ["gitea-git"] },
    { name: "a Gitea pull request", fixture: "gitea-pull-request", refreshed: ["gitea-pr"] },
  ])("$name, signed, refreshes exactly $refreshed", async ({ fixture: name, refreshed }) => {
    const keys = refreshed.map((n) => `${ns}/${n}`).sort();
    expect(await deliver(signedFixture(name))).toEqual(keys);
    // the apiserver saw the annotation on those, and on no other (the other namespace's twin included)
    await eventually("the annotations", () => Promise.resolve(keys.every((k) => annotated.includes(k)) ? true : undefined));
    expect([...new Set(annotated)].sort()).toEqual(keys);
  });

  it("a push to a branch no generator follows refreshes nothing", async () => {
    expect(await deliver(signedFixture("github-push", (p) => (p["ref"] = "refs/heads/unfollowed")))).toEqual([]);
  });
});

describe("refused requests refresh nothing", () => {
  const oversized = signedFixture("github-push", (p) => (p["padding"] = "x".repeat(1024 * 1024)));
  const unsigned = { headers: eventHeaders("gitlab", "Push Hook"), body: Buffer.from(JSON.stringify(fixture("gitlab-push"))) };
  it.each([
    {
      name: "a forged GitHub signature",
      req: signedFixture("github-push", () => {}, { github: "not-the-secret" }),
      status: 401,
      log: "webhook refused: X-Hub-Signature-256 does not match the payload",
    },
    {
      name: "a forged Bitbucket Server signature",
      req: signedFixture("bitbucketserver-push", () => {}, { bitbucketServer: "nope" }),
      status: 401,
      log: "webhook refused: X-Hub-Signature does not match the payload",
    },
    {
      name: "a wrong Azure DevOps password",
      req: signedFixture("azuredevops-push", () => {}, { azureDevOps: { username: "hook", password: "guess" } }),
      status: 401,
      log: "webhook refused: basic auth credentials do not match",
    },
    { name: "an unsigned GitLab push", req: unsigned, status: 401, log: "webhook refused: missing X-Gitlab-Token header" },
    { name: "a body over argocd-cm's 1 MiB limit", req: oversized, status: 413, log: "webhook refused: payload too large" },
    {
      name: "a malformed Gitea push",
      req: signed("gitea", "push", '{"ref": 42}'),
      status: 400,
      log: "webhook refused: the Gitea push event is malformed at ref: Invalid input: expected string, received number",
    },
    {
      name: "a request of no known provider",
      req: { headers: { "content-type": "application/json" }, body: Buffer.from("{}") },
      status: 400,
      log: "webhook refused: Unknown webhook event",
    },
  ])("$name is answered $status and logged", async ({ req, status, log }) => {
    const before = processedLines().length;
    annotated.length = 0;
    const res = await send(req);
    expect(res.status).toBe(status);
    expect(res.text).toMatch(/^Webhook processing failed: /);
    await controller.waitForLog(log, 10_000);
    expect(processedLines()).toHaveLength(before);
    expect(annotated).toEqual([]);
  });

  it("every fixture is covered by a row above", () => {
    expect(Object.keys(FIXTURE_EVENTS)).toHaveLength(12);
  });
});
