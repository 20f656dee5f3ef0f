/**
 * The harness itself: Argo CD v3.6's application controller and repo-server, started by the tests
 * against the control plane with Argo CD's CRDs, sync an Application from a local Git repository,
 * and the destination's objects appear.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resources, type KubeApiClient } from "../../src/kube/index.js";
import { applications, controllerNamespace, eventually, sharedClient } from "../e2e/support/controller.js";
import { git, makeRepo, TempDirs } from "../integration/support/git-repos.js";
import { startArgoCd, type ArgoCd } from "./support/argocd.js";
import { inject } from "vitest";

const temp = new TempDirs();
let client: KubeApiClient;
let argo: ArgoCd | undefined;
let ns = "";

beforeAll(async () => {
  client = sharedClient();
  ns = await controllerNamespace(client, "argo-harness");
  argo = await startArgoCd(client, { kubeconfigPath: inject("kubeconfigPath"), namespace: ns });
});

afterAll(async () => {
  await argo?.stop();
  await client.delete(resources.Namespaces, { name: ns }).catch(() => undefined);
  await client.transport.close();
  temp.cleanup();
});

describe("Argo CD v3.6 in the harness", () => {
  it("syncs an Application written by hand from a local Git repository", async () => {
    const repo = makeRepo(temp, { "app/cm.yaml": 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: hello\ndata:\n  v: "1"\n' });
    const head = git(repo, "rev-parse", "HEAD").trim();
    await client.create(resources.Applications, {
      apiVersion: "argoproj.io/v1alpha1",
      kind: "Application",
      metadata: { name: "hello", namespace: ns },
      spec: {
        project: "default",
        source: { repoURL: `file://${repo}`, path: "app", targetRevision: "HEAD" },
        destination: { server: "https://kubernetes.default.svc", namespace: ns },
        syncPolicy: { automated: {} },
      },
    });
    const app = await eventually(
      "hello Synced and Healthy",
      async () => {
        const a = (await applications(client, ns)).get("hello");
        return a?.status?.sync?.status === "Synced" && a.status.health?.status === "Healthy" ? a : undefined;
      },
      90_000,
    );
    expect(app.status?.sync?.revision).toBe(head);
    const cm = await client.get<{ data?: Record<string, string> }>(resources.ConfigMaps, { namespace: ns, name: "hello" });
    expect(cm.data).toEqual({ v: "1" });
  });
});
