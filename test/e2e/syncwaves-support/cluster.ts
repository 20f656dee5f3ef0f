/**
 * Test support for the sync engine's e2e tests: watches that record what happened in the cluster
 * (ordered by the etcd revision of each event), Application builders, and waiting on conditions.
 */
import type { Application } from "../../../src/api/index.js";
import { resources, type KubeApiClient, type ResourceDescriptor } from "../../../src/kube/index.js";
import { eventually } from "../support/controller.js";

/** Resources the tests watch. */
export const R = {
  ConfigMaps: resources.ConfigMaps,
  Jobs: { group: "batch", version: "v1", plural: "jobs", kind: "Job", namespaced: true } satisfies ResourceDescriptor,
} as const;

/** One event seen by a watch. */
export interface Seen {
  readonly type: string;
  /** `Kind/name`. */
  readonly name: string;
  readonly uid: string;
  readonly rv: number;
}

/** Records every event of the given kinds in one namespace (from the current state on). */
export function record(
  client: KubeApiClient,
  ns: string,
  kinds: readonly ResourceDescriptor[],
): { events: Seen[]; stop: () => void; ordered: (type?: string) => string[] } {
  const events: Seen[] = [];
  const controllers = kinds.map((resource) => {
    const ac = new AbortController();
    void client
      .watch(resource, { namespace: ns, resourceVersion: "0", signal: ac.signal }, (e) => {
        if (e.type === "BOOKMARK" || e.type === "ERROR") return;
        const name = `${resource.kind}/${e.object.metadata?.name ?? ""}`;
        if (name === "ConfigMap/kube-root-ca.crt") return;
        events.push({
          type: e.type,
          name,
          uid: String(e.object.metadata?.uid ?? ""),
          rv: Number(e.object.metadata?.resourceVersion ?? "0"),
        });
      })
      .catch(() => undefined);
    return ac;
  });
  return {
    events,
    stop: () => controllers.forEach((c) => c.abort()),
    ordered: (type) =>
      [...events]
        .filter((e) => type === undefined || e.type === type)
        .sort((a, b) => a.rv - b.rv)
        .map((e) => e.name),
  };
}

/** Polls `probe` until it returns a value, or fails after `timeoutMs` naming what it waited for. */
export function waitFor<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
  return eventually(what, probe, timeoutMs);
}

/** An Application of `repoURL`/`path` deploying into `destNs`. */
export function application(
  name: string,
  appNs: string,
  destNs: string,
  o: {
    repoURL: string;
    path: string;
    operation?: Application["operation"];
    finalizers?: string[];
    destination?: Application["spec"]["destination"];
    syncPolicy?: Application["spec"]["syncPolicy"];
  },
): Application {
  return {
    apiVersion: "argoproj.io/v1alpha1",
    kind: "Application",
    metadata: { name, namespace: appNs, ...(o.finalizers ? { finalizers: o.finalizers } : {}) },
    spec: {
      project: "default",
      destination: o.destination ?? { server: "https://kubernetes.default.svc", namespace: destNs },
      source: { repoURL: o.repoURL, path: o.path, targetRevision: "HEAD" },
      ...(o.syncPolicy ? { syncPolicy: o.syncPolicy } : {}),
    },
    ...(o.operation ? { operation: o.operation } : {}),
  };
}

/** Waits until the Application's operation completed (operation cleared, phase not Running); returns it. */
export function operationDone(client: KubeApiClient, ns: string, name: string, timeoutMs = 60_000): Promise<Application> {
  return waitFor(
    `the operation of ${name}`,
    async () => {
      const app = await client.get<Application>(resources.Applications, { namespace: ns, name });
      const phase = app.status?.operationState?.phase;
      return app.operation === undefined && phase !== undefined && phase !== "Running" ? app : undefined;
    },
    timeoutMs,
  );
}

/** A ConfigMap manifest, optionally in a wave. */
export function configMap(name: string, wave?: number): string {
  const annotations = wave === undefined ? "" : `\n  annotations:\n    argocd.argoproj.io/sync-wave: "${String(wave)}"`;
  return `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}${annotations}\ndata:\n  k: v\n`;
}

/** A Job hook manifest (JSON) whose pod completes on KWOK; `extra` merges into the Job spec. */
export function hookJob(name: string, hook: string, annotations: Record<string, string> = {}, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({
    apiVersion: "batch/v1",
    kind: "Job",
    metadata: { name, annotations: { "argocd.argoproj.io/hook": hook, ...annotations } },
    spec: {
      backoffLimit: 0,
      template: { spec: { restartPolicy: "Never", containers: [{ name: "c", image: "busybox" }] } },
      ...extra,
    },
  });
}
