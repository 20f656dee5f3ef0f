/**
 * The seed's guestbook example on the real control plane: a Git repository with one directory of
 * manifests per cluster, the ApplicationSet with dev, qa (maxUpdate 0) and prod (10%) steps chosen by
 * the `envLabel` label, the manual sync an operator issues (the Argo CD CLI writes `operation`), and
 * the checks run over what a {@link RolloutRecorder} saw.
 */
import { commit, git, makeRepo, type TempDirs } from "../../integration/support/git-repos.js";
import { resources, type KubeApiClient, type KubeObject } from "../../../src/kube/index.js";
import { processArgs, spawnController, type ControllerProcess } from "./controller.js";
import type { AppEvent, AppState, RolloutRecorder } from "./rollout-recorder.js";

/** The environments, in rollout order. */
export const ENVS = ["env-dev", "env-qa", "env-prod"] as const;
/** One environment label. */
export type Env = (typeof ENVS)[number];

/** How many clusters each environment has. */
export type Sizes = Readonly<Record<Env, number>>;

/** The cluster names of each environment: `engineering-dev-1`, … */
export function clusters(sizes: Sizes): Array<{ cluster: string; env: Env }> {
  return ENVS.flatMap((env) =>
    Array.from({ length: sizes[env] }, (_, i) => ({ cluster: `engineering-${env.slice(4)}-${String(i + 1)}`, env })),
  );
}

/** The Application generated for a cluster. */
export const appName = (cluster: string): string => `${cluster}-guestbook`;

function manifests(sizes: Sizes, version: string): Record<string, string> {
  const files: Record<string, string> = {};
  for (const { cluster } of clusters(sizes)) {
    files[`guestbook/${cluster}/guestbook.yaml`] =
      `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${cluster}-guestbook\ndata:\n  version: "${version}"\n`;
  }
  return files;
}

/** The guestbook repository and how to push to it. */
export interface GuestbookRepo {
  readonly url: string;
  /** The commit of version 1. */
  readonly first: string;
  /** Commits a new version of every cluster's manifests; returns its SHA. */
  push(version: string): string;
}

/** A repository (branch `main`) holding version 1 of every cluster's manifests. */
export function guestbookRepo(temp: TempDirs, sizes: Sizes): GuestbookRepo {
  const dir = makeRepo(temp, manifests(sizes, "1"));
  const first = git(dir, "rev-parse", "HEAD").trim();
  return { url: `file://${dir}`, first, push: (version) => commit(dir, manifests(sizes, version), `version ${version}`) };
}

const step = (env: Env, maxUpdate?: number | string) => ({
  matchExpressions: [{ key: "envLabel", operator: "In", values: [env] }],
  ...(maxUpdate !== undefined ? { maxUpdate } : {}),
});

/** The seed's ApplicationSet: dev all at once, qa by hand, prod 10% at a time, deleted in reverse. */
export function guestbookAppSet(ns: string, repo: GuestbookRepo, sizes: Sizes): KubeObject {
  return {
    apiVersion: "argoproj.io/v1alpha1",
    kind: "ApplicationSet",
    metadata: { name: "guestbook", namespace: ns },
    spec: {
      generators: [
        { list: { elements: clusters(sizes).map((c) => ({ cluster: c.cluster, url: "https://kubernetes.default.svc", env: c.env })) } },
      ],
      strategy: {
        type: "RollingSync",
        deletionOrder: "Reverse",
        rollingSync: { steps: [step("env-dev"), step("env-qa", 0), step("env-prod", "10%")] },
      },
      goTemplate: true,
      goTemplateOptions: ["missingkey=error"],
      template: {
        metadata: {
          name: "{{.cluster}}-guestbook",
          labels: { envLabel: "{{.env}}" },
          finalizers: ["resources-finalizer.argocd.argoproj.io"],
        },
        spec: {
          project: "default",
          source: { repoURL: repo.url, targetRevision: "main", path: "guestbook/{{.cluster}}" },
          destination: { server: "{{.url}}", namespace: ns },
        },
      },
    },
  };
}

/** Who the controller's sync operations are initiated by. */
export const CONTROLLER = "applicationset-controller";

/** Asks for a refresh of every Application, as Argo CD's webhook handler does on a push. */
export async function refreshAll(client: KubeApiClient, ns: string, names: readonly string[]): Promise<void> {
  const body = { metadata: { annotations: { "argocd.argoproj.io/refresh": "normal" } } };
  await Promise.all(names.map((name) => client.patch(resources.Applications, { namespace: ns, name }, { type: "merge", body })));
}

/** Syncs an Application as `argocd app sync` does: the resolved revision written as `operation`. */
export async function manualSync(client: KubeApiClient, ns: string, name: string, revision: string): Promise<void> {
  const operation = { sync: { revision }, initiatedBy: { username: "admin" }, retry: {} };
  await client.patch(resources.Applications, { namespace: ns, name }, { type: "merge", body: { operation } });
}

/** Synced and Healthy at `revision`, with no operation pending. */
export function settledAt(a: AppState | undefined, revision: string): boolean {
  return (
    a !== undefined && !a.gone && a.operation === undefined && a.sync === "Synced" && a.health === "Healthy" && a.revision === revision
  );
}

/** Resolves once every Application of `env` is Synced and Healthy at `revision`. */
export function envSettled(rec: RolloutRecorder, env: string, count: number, revision: string, timeoutMs?: number): Promise<true> {
  return rec.waitFor(
    `every ${env} Application Synced and Healthy at ${revision.slice(0, 7)}`,
    () => {
      const apps = rec.env(env);
      return apps.length === count && apps.every((a) => settledAt(a, revision)) ? true : undefined;
    },
    timeoutMs,
  );
}

/** An operation written on an Application: when, by whom, pinned to what. */
export interface WrittenOperation {
  readonly seq: number;
  readonly t: number;
  readonly name: string;
  readonly env: string;
  readonly by: string;
  readonly revision: string | undefined;
}

/** Every operation that appeared on an Application (absent or different before), in order. */
export function operationsWritten(rec: RolloutRecorder): WrittenOperation[] {
  const last = new Map<string, AppEvent["operation"]>();
  const out: WrittenOperation[] = [];
  for (const e of rec.apps) {
    const before = last.get(e.name);
    last.set(e.name, e.operation);
    if (e.operation === undefined || (before !== undefined && JSON.stringify(before) === JSON.stringify(e.operation))) continue;
    out.push({ seq: e.seq, t: e.t, name: e.name, env: e.env, by: e.operation.by, revision: e.operation.revision });
  }
  return out;
}

/**
 * Operations that broke the step order: one written by the controller on an Application of a later
 * environment pinned to a revision some Application of an earlier environment had not yet been seen
 * Synced and Healthy at. (A manual sync may go anywhere.)
 */
export function outOfOrderSyncs(rec: RolloutRecorder): string[] {
  const problems: string[] = [];
  for (const op of operationsWritten(rec)) {
    if (op.by !== CONTROLLER) continue;
    const k = ENVS.indexOf(op.env as Env);
    const before = rec.apps.filter((e) => e.seq < op.seq);
    const names = new Set(before.filter((e) => ENVS.indexOf(e.env as Env) < k).map((e) => e.name));
    const behind = [...names].filter((n) => !before.some((e) => e.name === n && settledAt(e, op.revision ?? "")));
    if (behind.length > 0) problems.push(`${op.name} synced to ${String(op.revision)} before ${behind.join(", ")} Healthy at it`);
  }
  return problems;
}

/** The largest number of entries of `env`'s Applications Pending or Progressing at once in `applicationStatus`. */
export function maxUpdating(rec: RolloutRecorder, env: Env): number {
  const prefix = `engineering-${env.slice(4)}-`;
  let max = 0;
  for (const s of rec.sets) {
    const n = s.entries.filter(([app, , status]) => app.startsWith(prefix) && (status === "Pending" || status === "Progressing")).length;
    max = Math.max(max, n);
  }
  return max;
}

/** Syncs started per Application and synced revision (distinct `operationState.startedAt`), as `name@rev` → count. */
export function syncsPerRevision(rec: RolloutRecorder): Map<string, number> {
  const seen = new Map<string, Set<string>>();
  for (const e of rec.apps) {
    if (e.opStartedAt === undefined || e.opRevision === undefined || e.opRevision === "") continue;
    const key = `${e.name}@${e.opRevision}`;
    seen.set(key, (seen.get(key) ?? new Set()).add(e.opStartedAt));
  }
  return new Map([...seen].map(([k, v]) => [k, v.size]));
}

/**
 * `appset controller` with progressive syncs and the sync engine, for one namespace (grace period
 * 5 s), on the shared control plane or through `kubeconfigPath`.
 */
export function rolloutController(ns: string, kubeconfigPath?: string): ControllerProcess {
  const args = processArgs(ns, "--enable-progressive-syncs", "--enable-sync-engine", "--refresh-grace-period-seconds", "5");
  return kubeconfigPath === undefined ? spawnController(args) : spawnController(args, "controller", kubeconfigPath);
}
