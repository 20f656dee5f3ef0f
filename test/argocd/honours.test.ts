/**
 * Argo CD v3.6's application controller honours what our controller writes on an Application:
 * - the sync `operation` (pinned revision, `prune` kept from the template's automated block,
 *   initiated by `applicationset-controller`): a file removed from Git is pruned;
 * - the `argocd.argoproj.io/refresh` annotation the "reconciled before progressing" gate sets when
 *   the application controller lags behind a spec change: it refreshes and removes it;
 * - the `resources-finalizer.argocd.argoproj.io` finalizer of the template: deleting the
 *   ApplicationSet deletes the Applications (Kubernetes GC through our owner references) and Argo CD
 *   deletes what they deployed.
 */
import { beforeAll, describe, expect, it } from "vitest";
import { resources, type KubeApiClient } from "../../src/kube/index.js";
import { applications, eventually } from "../e2e/support/controller.js";
import { CONTROLLER, refreshAll } from "../e2e/support/guestbook-rollout.js";
import { git, makeRepo } from "../integration/support/git-repos.js";
import { besideSuite } from "./support/beside.js";

const suite = besideSuite();
let client: KubeApiClient;

beforeAll(() => {
  client = suite.client();
});

const cm = (name: string): string => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\ndata:\n  a: "1"\n`;

function appSet(ns: string, repoURL: string, path: string): Record<string, unknown> {
  return {
    apiVersion: "argoproj.io/v1alpha1",
    kind: "ApplicationSet",
    metadata: { name: "honours", namespace: ns },
    spec: {
      generators: [{ list: { elements: [{ name: "honours-app" }] } }],
      strategy: {
        type: "RollingSync",
        rollingSync: { steps: [{ matchExpressions: [{ key: "envLabel", operator: "In", values: ["env-dev"] }] }] },
      },
      template: {
        metadata: { name: "{{name}}", labels: { envLabel: "env-dev" }, finalizers: ["resources-finalizer.argocd.argoproj.io"] },
        spec: {
          project: "default",
          source: { repoURL, targetRevision: "HEAD", path },
          destination: { server: "https://kubernetes.default.svc", namespace: ns },
          syncPolicy: { automated: { prune: true } },
        },
      },
    },
  };
}

async function configMapNames(ns: string): Promise<string[]> {
  const list = await client.list(resources.ConfigMaps, { namespace: ns });
  return list.items
    .map((c) => c.metadata?.name ?? "")
    .filter((n) => n.startsWith("keep") || n.startsWith("drop"))
    .sort();
}

describe("Argo CD's application controller and what our controller writes", () => {
  it("runs our sync operation with prune, refreshes on our annotation, and cascades on the finalizer", async () => {
    const { ns, argo } = await suite.namespaceWithArgoCd("argo-honours");
    const dir = makeRepo(suite.temp, { "one/keep.yaml": cm("keep"), "one/drop.yaml": cm("drop"), "two/keep.yaml": cm("keep") });
    const ours = suite.ourController(ns);
    await ours.waitForLog("caches synced, starting workers");
    await client.create(resources.ApplicationSets, appSet(ns, `file://${dir}`, "one"));
    const first = git(dir, "rev-parse", "HEAD").trim();
    const synced = (rev: string) => async () => {
      const a = (await applications(client, ns)).get("honours-app");
      return a?.status?.sync?.status === "Synced" &&
        a.status.health?.status === "Healthy" &&
        a.status.sync.revision === rev &&
        a.operation === undefined
        ? a
        : undefined;
    };
    await eventually("the first sync", synced(first), 90_000);
    expect(await configMapNames(ns)).toEqual(["drop", "keep"]);

    // The operation: a file removed from Git is pruned by our sync (prune comes from the template).
    git(dir, "rm", "-q", "one/drop.yaml");
    git(dir, "commit", "-qm", "remove drop");
    const second = git(dir, "rev-parse", "HEAD").trim();
    await refreshAll(client, ns, ["honours-app"]);
    const pruned = await eventually("the pruning sync", synced(second), 90_000);
    expect(pruned.status?.operationState?.operation).toMatchObject({
      initiatedBy: { username: CONTROLLER },
      sync: { revision: second, prune: true },
    });
    expect(await configMapNames(ns)).toEqual(["keep"]);

    // The refresh annotation: with Argo CD frozen, a spec change is not reconciled within the grace period.
    argo.pause();
    await client.patch(
      resources.ApplicationSets,
      { namespace: ns, name: "honours" },
      { type: "merge", body: { spec: { template: { spec: { source: { path: "two" } } } } } },
    );
    const annotated = await eventually(
      "our refresh annotation",
      async () => {
        const a = (await applications(client, ns)).get("honours-app");
        return a?.spec.source?.path === "two" && a.metadata.annotations?.["argocd.argoproj.io/refresh"] !== undefined ? a : undefined;
      },
      60_000,
    );
    expect(annotated.metadata.annotations?.["argocd.argoproj.io/refresh"]).toBe("normal");
    argo.resume();
    let last: unknown;
    const refreshed = await eventually(
      "Argo CD refreshed and removed the annotation",
      async () => {
        const a = (await applications(client, ns)).get("honours-app");
        last = { annotations: a?.metadata.annotations, comparedTo: a?.status?.sync?.comparedTo, reconciledAt: a?.status?.reconciledAt };
        return a?.metadata.annotations?.["argocd.argoproj.io/refresh"] === undefined && a?.status?.sync?.comparedTo?.source?.path === "two"
          ? a
          : undefined;
      },
      120_000,
    ).catch((err: unknown) => {
      throw new Error(`${String(err)}; last seen: ${JSON.stringify(last)}`, { cause: err });
    });
    expect(refreshed.status?.reconciledAt).toBeDefined();
    // The new path holds the same object, so the Application is Synced without a sync and the step completes.
    await eventually(
      "Synced at the new path, the rollout entry Healthy",
      async () => {
        const a = (await applications(client, ns)).get("honours-app");
        const set = await client.get<{ status?: { applicationStatus?: Array<{ status: string }> } }>(resources.ApplicationSets, {
          namespace: ns,
          name: "honours",
        });
        return a?.status?.sync?.status === "Synced" && set.status?.applicationStatus?.[0]?.status === "Healthy" ? true : undefined;
      },
      90_000,
    );

    // The finalizer: the ApplicationSet goes, GC deletes the Application, Argo CD deletes its objects first.
    await client.delete(resources.ApplicationSets, { namespace: ns, name: "honours" });
    await eventually("the Application gone", async () => ((await applications(client, ns)).size === 0 ? true : undefined), 90_000);
    expect(await configMapNames(ns)).toEqual([]);
  }, 420_000);
});
