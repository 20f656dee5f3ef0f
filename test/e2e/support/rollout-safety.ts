/**
 * Rollout safety on the real control plane: the RolloutPolicy and RolloutRun CRDs of
 * deploy/rollout-crds installed (and Established) before a controller starts, a Git repository with
 * one directory per Application whose manifests can deploy, never become ready, or be refused by
 * the apiserver, a two-step RollingSync ApplicationSet over it, a RolloutPolicy selecting it, and
 * reads of its RolloutRuns and of `appset rollout` as a person runs it.
 */
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { inject } from "vitest";
import { commit, git, makeRepo, type TempDirs } from "../../integration/support/git-repos.js";
import { REPO_ROOT, readManifests } from "../../unit/deploy/kustomize.js";
import { run as runCli } from "../../../src/cli/run.js";
import type { RolloutRun } from "../../../src/api/rollout-run.js";
import type { ApplicationSet, ApplicationSetCondition } from "../../../src/api/index.js";
import { newestRun } from "../../../src/cli/rollout-runs.js";
import { isNotFound, resources, type KubeApiClient, type KubeObject, type ResourceDescriptor } from "../../../src/kube/index.js";
import { eventually, readAppSet } from "./controller.js";
import { Applier } from "./kubectl.js";

const CRDs: ResourceDescriptor = {
  group: "apiextensions.k8s.io",
  version: "v1",
  plural: "customresourcedefinitions",
  kind: "CustomResourceDefinition",
  namespaced: false,
};

type Crd = KubeObject & { status?: { conditions?: Array<{ type: string; status: string }> } };

/**
 * Server-side applies the CRDs of deploy/rollout-crds and waits until each is Established; resolves
 * to the names of those that were not installed before (for {@link removeRolloutCrds}).
 */
export async function installRolloutCrds(client: KubeApiClient): Promise<string[]> {
  const dir = join(REPO_ROOT, "deploy", "rollout-crds");
  const crds = readdirSync(dir)
    .filter((f) => f.endsWith("-crd.yaml"))
    .flatMap((f) => readManifests(join(dir, f)));
  const fresh: string[] = [];
  for (const crd of crds) {
    try {
      await client.get(CRDs, { name: crd.metadata.name });
    } catch (err) {
      if (!isNotFound(err)) throw err;
      fresh.push(crd.metadata.name);
    }
  }
  await new Applier(client).apply(crds, { force: true });
  for (const crd of crds) {
    await eventually(
      `CRD ${crd.metadata.name} Established`,
      async () => {
        const live = await client.get<Crd>(CRDs, { name: crd.metadata.name });
        return live.status?.conditions?.some((c) => c.type === "Established" && c.status === "True") ? true : undefined;
      },
      30_000,
    );
  }
  return fresh;
}

/** Deletes the CRDs {@link installRolloutCrds} installed. */
export async function removeRolloutCrds(client: KubeApiClient, names: readonly string[]): Promise<void> {
  for (const name of names) await client.delete(CRDs, { name }).catch(() => undefined);
}

/** What an Application's directory deploys. */
export type Manifest =
  /** A ConfigMap: Synced and Healthy at once. */
  | "ok"
  /** A Deployment whose pod no node can take: it stays Progressing. */
  | "unschedulable"
  /** A ConfigMap whose name the apiserver refuses: its sync fails. */
  | "refused"
  /** A ConfigMap behind a PreSync Job whose pod no node can take: the Job's deadline fails the sync. */
  | "failing-presync";

function manifest(app: string, kind: Manifest, version: string): string {
  if (kind === "ok") return `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${app}\ndata:\n  version: "${version}"\n`;
  if (kind === "failing-presync") return `${presyncJob(app)}\n---\n${manifest(app, "ok", version)}`;
  if (kind === "refused") return `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${app}_Refused\ndata:\n  version: "${version}"\n`;
  return JSON.stringify({
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: app },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app } },
      template: {
        metadata: { labels: { app, version } },
        spec: { nodeSelector: { "example.com/none": "true" }, containers: [{ name: "c", image: "busybox" }] },
      },
    },
  });
}

/** A PreSync hook Job that fails 2 s after it starts: its pod can never be scheduled. */
function presyncJob(app: string): string {
  return JSON.stringify({
    apiVersion: "batch/v1",
    kind: "Job",
    metadata: { name: `${app}-presync`, annotations: { "argocd.argoproj.io/hook": "PreSync" } },
    spec: {
      backoffLimit: 0,
      activeDeadlineSeconds: 2,
      template: {
        spec: { restartPolicy: "Never", nodeSelector: { "example.com/none": "true" }, containers: [{ name: "c", image: "busybox" }] },
      },
    },
  });
}

/** The Applications of each step (1-based, in order) and what each deploys. */
export type Layout = ReadonlyArray<Readonly<Record<string, Manifest>>>;

/** The env label of a step's Applications (the recorder groups by it). */
export const stepLabel = (step: number): string => `step-${String(step)}`;

/** A repository of the layout's manifests, and how to commit another version of it. */
export interface SafetyRepo {
  readonly url: string;
  /** The commit of version 1. */
  readonly first: string;
  /** Commits version `version` of `layout`; returns its SHA. */
  push(version: string, layout: Layout): string;
}

function files(layout: Layout, version: string): Record<string, string> {
  const out: Record<string, string> = {};
  // One file name whatever it holds (JSON is YAML), so a new version replaces the old manifest.
  for (const step of layout)
    for (const [app, kind] of Object.entries(step)) out[`apps/${app}/manifest.yaml`] = manifest(app, kind, version);
  return out;
}

/** A repository (branch `main`) holding version 1 of the layout. */
export function safetyRepo(temp: TempDirs, layout: Layout): SafetyRepo {
  const dir = makeRepo(temp, files(layout, "1"));
  const first = git(dir, "rev-parse", "HEAD").trim();
  return { url: `file://${dir}`, first, push: (version, next) => commit(dir, files(next, version), `version ${version}`) };
}

/** A RollingSync ApplicationSet with one step per layout entry, selected by the `envLabel` label. */
export function safetyAppSet(ns: string, name: string, repo: SafetyRepo, layout: Layout): KubeObject {
  const elements = layout.flatMap((apps, i) => Object.keys(apps).map((app) => ({ app, step: stepLabel(i + 1) })));
  return {
    apiVersion: "argoproj.io/v1alpha1",
    kind: "ApplicationSet",
    metadata: { name, namespace: ns },
    spec: {
      generators: [{ list: { elements } }],
      strategy: {
        type: "RollingSync",
        rollingSync: {
          steps: layout.map((_, i) => ({ matchExpressions: [{ key: "envLabel", operator: "In", values: [stepLabel(i + 1)] }] })),
        },
      },
      goTemplate: true,
      goTemplateOptions: ["missingkey=error"],
      template: {
        metadata: { name: "{{.app}}", labels: { envLabel: "{{.step}}" } },
        spec: {
          project: "default",
          source: { repoURL: repo.url, targetRevision: "main", path: "apps/{{.app}}" },
          destination: { server: "https://kubernetes.default.svc", namespace: ns },
          // A failed sync stays failed: the rollout sees it at once instead of after the retries.
          syncPolicy: { retry: { limit: 0 } },
        },
      },
    },
  };
}

/** A RolloutPolicy named `safety` selecting the ApplicationSet `appSet`. */
export function rolloutPolicy(ns: string, appSet: string, spec: Record<string, unknown>): KubeObject {
  return {
    apiVersion: "progressivesync.appset.dev/v1alpha1",
    kind: "RolloutPolicy",
    metadata: { name: "safety", namespace: ns },
    spec: { applicationSets: { names: [appSet] }, ...spec },
  };
}

/** The newest RolloutRun of an ApplicationSet, undefined when there is none. */
export async function latestRun(client: KubeApiClient, ns: string, appSet: string): Promise<RolloutRun | undefined> {
  const list = await client.list(resources.RolloutRuns, { namespace: ns });
  return newestRun((list.items as unknown as RolloutRun[]).filter((r) => r.spec.applicationSet === appSet));
}

/** Every RolloutRun of an ApplicationSet. */
export async function runsOf(client: KubeApiClient, ns: string, appSet: string): Promise<RolloutRun[]> {
  const list = await client.list(resources.RolloutRuns, { namespace: ns });
  return (list.items as unknown as RolloutRun[]).filter((r) => r.spec.applicationSet === appSet);
}

/**
 * Polls the newest run until `pred` holds of it; resolves to it. With `among: "any"` it polls every
 * run instead: for waits where a later run may start after the one awaited (a commit refreshes
 * Applications one by one).
 */
export function waitForRun(
  client: KubeApiClient,
  ns: string,
  appSet: string,
  what: string,
  pred: (run: RolloutRun) => boolean,
  timeoutMs = 60_000,
  among: "newest" | "any" = "newest",
): Promise<RolloutRun> {
  const candidates = async (): Promise<RolloutRun[]> =>
    among === "any" ? runsOf(client, ns, appSet) : [await latestRun(client, ns, appSet)].filter((r) => r !== undefined);
  return eventually(`the RolloutRun of ${appSet} ${what}`, async () => (await candidates()).find(pred), timeoutMs);
}

/** The phase of a run's step (1-based). */
export const stepPhase = (run: RolloutRun, step: number): string | undefined => run.status?.steps?.find((s) => s.step === step)?.phase;

/** The ApplicationSet's `RolloutProgressing` condition. */
export async function progressing(client: KubeApiClient, ns: string, name: string): Promise<ApplicationSetCondition | undefined> {
  const set: ApplicationSet = await readAppSet(client, ns, name);
  return set.status?.conditions?.find((c) => c.type === "RolloutProgressing");
}

/** Polls the ApplicationSet until its `RolloutProgressing` condition has `reason` (the run's status is written first); resolves to it. */
export function waitForProgressing(client: KubeApiClient, ns: string, name: string, reason: string): Promise<ApplicationSetCondition> {
  return eventually(
    `RolloutProgressing of ${name} with reason ${reason}`,
    async () => {
      const c = await progressing(client, ns, name);
      return c?.reason === reason ? c : undefined;
    },
    20_000,
  );
}

/** `appset rollout ARGS -n NS` on the shared control plane; its exit code and output. */
export async function appsetRollout(ns: string, ...args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = "";
  let err = "";
  const code = await runCli(
    ["rollout", ...args, "-n", ns, "--kubeconfig", inject("kubeconfigPath")],
    (s) => (out += s),
    (s) => (err += s),
  );
  return { code, out, err };
}

/**
 * `appset rollout status` of `appSet`, read again while the run it shows has no status yet: a run
 * the Applications' refresh starts between a test's reads and the command is shown before its status
 * is written.
 */
export function rolloutStatusScreen(ns: string, appSet: string): Promise<{ code: number; out: string; err: string }> {
  return eventually("a status screen whose run has its status", async () => {
    const s = await appsetRollout(ns, "status", appSet);
    return s.out.includes("Pending (no status yet)") ? undefined : s;
  });
}
