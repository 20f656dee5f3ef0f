/**
 * Rollout safety beside Argo CD v3.6.2 (docs/progressive-syncs.md#rollout-safety): our controller
 * gates RollingSync with a RolloutPolicy of its own group and writes the sync operations; Argo CD's
 * application controller runs them, the rollback included. A first rollout completes on version 1;
 * version 2 adds, to dev only, a Deployment that can never become available, so dev's step misses
 * its progress deadline: the run halts, prod never gets a sync, and dev is synced back to version 1
 * by Argo CD with the operation that names the run.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, inject, it } from "vitest";
import { parseAllDocuments } from "yaml";
import type { RolloutRun } from "../../src/api/index.js";
import { isAlreadyExists, resources, type KubeApiClient, type KubeObject } from "../../src/kube/index.js";
import { run as runCli } from "../../src/cli/run.js";
import { rollbackMarker } from "../../src/progressivesync/safety/index.js";
import { waitFor } from "../cluster/http.js";
import { commit, git, makeRepo } from "../integration/support/git-repos.js";
import { REPO_ROOT } from "../unit/deploy/kustomize.js";
import { besideSuite } from "./support/beside.js";

const suite = besideSuite();
let client: KubeApiClient;

const CRDS = resources.CustomResourceDefinitions;

/** Installs deploy/rollout-crds (once per control plane) and waits until both are Established. */
async function installRolloutCrds(): Promise<void> {
  for (const file of ["rolloutpolicy-crd.yaml", "rolloutrun-crd.yaml"]) {
    const crd = parseAllDocuments(readFileSync(join(REPO_ROOT, "deploy/rollout-crds", file), "utf8"))[0]!.toJS() as KubeObject;
    await client.create(CRDS, crd).catch((err: unknown) => {
      if (!isAlreadyExists(err)) throw err;
    });
    await waitFor(`${crd.metadata?.name ?? ""} Established`, async () => {
      const live = await client.get<KubeObject & { status?: { conditions?: { type: string; status: string }[] } }>(CRDS, {
        name: crd.metadata?.name ?? "",
      });
      return live.status?.conditions?.some((c) => c.type === "Established" && c.status === "True") ? true : undefined;
    });
  }
}

beforeAll(async () => {
  client = suite.client();
  await installRolloutCrds();
});

const configMap = (name: string, version: string): string =>
  `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\ndata:\n  version: "${version}"\n`;

/** A Deployment no node can run: it never becomes available, so its Application stays Progressing. */
const stuck = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: never-ready
spec:
  replicas: 1
  progressDeadlineSeconds: 3600
  selector: { matchLabels: { app: never-ready } }
  template:
    metadata: { labels: { app: never-ready } }
    spec:
      nodeSelector: { rollout-safety-test: "no-such-node" }
      containers: [{ name: c, image: registry.invalid/never:1 }]
`;

function appSet(ns: string, repoURL: string): KubeObject {
  const step = (env: string) => ({ matchExpressions: [{ key: "env", operator: "In", values: [env] }] });
  return {
    apiVersion: "argoproj.io/v1alpha1",
    kind: "ApplicationSet",
    metadata: { name: "shop", namespace: ns },
    spec: {
      goTemplate: true,
      generators: [{ list: { elements: [{ env: "dev" }, { env: "prod" }] } }],
      strategy: { type: "RollingSync", rollingSync: { steps: [step("dev"), step("prod")] } },
      template: {
        metadata: { name: "shop-{{.env}}", labels: { env: "{{.env}}" } },
        spec: {
          project: "default",
          source: { repoURL, targetRevision: "main", path: "{{.env}}" },
          destination: { server: "https://kubernetes.default.svc", namespace: ns },
        },
      },
    },
  };
}

interface AppView {
  metadata: { name?: string };
  operation?: { sync?: { revision?: string }; info?: { name: string; value: string }[] };
  status?: {
    sync?: { status?: string; revision?: string };
    health?: { status?: string };
    operationState?: { phase?: string; syncResult?: { revision?: string }; operation?: { info?: { name: string; value: string }[] } };
  };
}

const app = (ns: string, name: string): Promise<AppView> =>
  client.get<AppView & KubeObject>(resources.Applications, { namespace: ns, name });

async function runs(ns: string): Promise<RolloutRun[]> {
  const list = await client.list<RolloutRun & KubeObject>(resources.RolloutRuns, {
    namespace: ns,
    labelSelector: "progressivesync.appset.dev/application-set=shop",
  });
  return list.items;
}

/** The run of the ApplicationSet whose targets are `revision`, once `done` says so. */
function runAt(ns: string, revision: string, done: (r: RolloutRun) => boolean, what: string): Promise<RolloutRun> {
  return waitFor(
    what,
    async () => (await runs(ns)).find((r) => r.spec.targetRevisions?.every((t) => t.revisions[0] === revision) === true && done(r)),
    { timeoutMs: 150_000, intervalMs: 500 },
  );
}

/** `appset rollout status shop` against the test's apiserver: its exit code and screen. */
async function rolloutStatus(ns: string): Promise<{ code: number; out: string }> {
  let out = "";
  const code = await runCli(
    ["rollout", "status", "shop", "-n", ns, "--kubeconfig", inject("kubeconfigPath")],
    (t) => (out += t),
    (t) => (out += t),
  );
  if (process.env["ROLLOUT_TRACE"]) process.stdout.write(out);
  return { code, out };
}

async function configVersion(ns: string, name: string): Promise<string | undefined> {
  const cm = await client.get<KubeObject & { data?: Record<string, string> }>(resources.ConfigMaps, { namespace: ns, name });
  return cm.data?.["version"];
}

describe("rollout safety synced by Argo CD's application controller", () => {
  it("halts at dev's progress deadline, never syncs prod, and has Argo CD sync dev back to the last completed revision", async () => {
    const { ns } = await suite.namespaceWithArgoCd("argo-safety");
    const dir = makeRepo(suite.temp, { "dev/app.yaml": configMap("shop-dev", "1"), "prod/app.yaml": configMap("shop-prod", "1") });
    const first = git(dir, "rev-parse", "HEAD").trim();
    await client.create(resources.RolloutPolicies, {
      apiVersion: "progressivesync.appset.dev/v1alpha1",
      kind: "RolloutPolicy",
      metadata: { name: "careful", namespace: ns },
      // Ten minutes for the first rollout, so that a slow machine cannot halt it; 20 s for the second.
      spec: { applicationSets: { names: ["shop"] }, defaults: { progressDeadline: "10m" }, rollback: { enabled: true } },
    });
    const ours = suite.ourController(ns);
    await ours.waitForLog("rollout safety on: RolloutPolicies and RolloutRuns are read");
    await ours.waitForLog("caches synced, starting workers");
    await client.create(resources.ApplicationSets, appSet(ns, `file://${dir}`));

    const ended = await runAt(ns, first, (r) => r.status?.phase === "Completed" || r.status?.phase === "Halted", "the first rollout ended");
    expect(ended.status).toMatchObject({ phase: "Completed" });
    expect(ended.status?.steps?.map((s) => [s.step, s.phase])).toEqual([
      [1, "Completed"],
      [2, "Completed"],
    ]);
    expect(await configVersion(ns, "shop-prod")).toBe("1");
    // A step's deadline is taken from the policy when the step starts: the second run's steps get 20 s.
    await client.patch(
      resources.RolloutPolicies,
      { namespace: ns, name: "careful" },
      { type: "merge", body: { spec: { defaults: { progressDeadline: "20s" } } } },
    );

    const second = commit(
      dir,
      { "dev/app.yaml": configMap("shop-dev", "2") + "---\n" + stuck, "prod/app.yaml": configMap("shop-prod", "2") },
      "version 2",
    );
    for (const name of ["shop-dev", "shop-prod"]) {
      await client.patch(
        resources.Applications,
        { namespace: ns, name },
        { type: "merge", body: { metadata: { annotations: { "argocd.argoproj.io/refresh": "normal" } } } },
      );
    }
    const halted = await runAt(ns, second, (r) => r.status?.phase === "Halted", "the second rollout halted");
    expect(halted.status).toMatchObject({ haltReason: "ProgressDeadlineExceeded", currentStep: 1 });
    expect(halted.status?.rollback?.applications).toEqual([{ application: "shop-dev", from: [second], to: [first] }]);
    expect(halted.status?.steps?.map((s) => [s.step, s.phase])).toEqual([
      [1, "RolledBack"],
      [2, "Waiting"],
    ]);

    const marker = rollbackMarker(halted.metadata.name ?? "");
    const dev = await waitFor(
      "Argo CD ran the rollback of dev",
      async () => {
        const a = await app(ns, "shop-dev");
        const op = a.status?.operationState;
        const ours = op?.operation?.info?.some((i) => i.value === marker) === true;
        return ours && op?.phase === "Succeeded" && a.operation === undefined ? a : undefined;
      },
      { timeoutMs: 120_000, intervalMs: 500 },
    );
    expect(dev.status?.operationState?.syncResult?.revision).toBe(first);
    expect(await configVersion(ns, "shop-dev")).toBe("1");
    // prod's step never started: no sync of version 2, and version 1 still deployed.
    const prod = await app(ns, "shop-prod");
    expect(prod.operation).toBeUndefined();
    expect(prod.status?.operationState?.syncResult?.revision).toBe(first);
    expect(await configVersion(ns, "shop-prod")).toBe("1");

    const set = await client.get<
      KubeObject & { status?: { conditions?: { type: string; status: string; reason: string; message: string }[] } }
    >(resources.ApplicationSets, { namespace: ns, name: "shop" });
    const screen = await rolloutStatus(ns);
    expect(screen.code).toBe(1);
    expect(screen.out).toContain("Halted, ProgressDeadlineExceeded");
    expect(screen.out).toContain("shop-dev");
    const progressing = set.status?.conditions?.find((c) => c.type === "RolloutProgressing");
    expect(progressing).toMatchObject({ status: "True", reason: "RolloutHalted" });
    expect(progressing?.message).toContain(`rollout ${halted.metadata.name ?? ""} halted at step 1`);
  }, 420_000);
});
