import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { label, obj, task, wave } from "../../test/unit/syncwaves/builders.js";
import { compareTasks, KIND_ORDER, kindRank, sortTasks } from "./order.js";
import { taskWave } from "./waves.js";
import type { SyncTask } from "./types.js";

describe("kind order", () => {
  it("is exactly Helm's list of 35 kinds, Namespace first and APIService last", () => {
    expect(KIND_ORDER).toEqual([
      "Namespace",
      "NetworkPolicy",
      "ResourceQuota",
      "LimitRange",
      "PodSecurityPolicy",
      "PodDisruptionBudget",
      "ServiceAccount",
      "Secret",
      "SecretList",
      "ConfigMap",
      "StorageClass",
      "PersistentVolume",
      "PersistentVolumeClaim",
      "CustomResourceDefinition",
      "ClusterRole",
      "ClusterRoleList",
      "ClusterRoleBinding",
      "ClusterRoleBindingList",
      "Role",
      "RoleList",
      "RoleBinding",
      "RoleBindingList",
      "Service",
      "DaemonSet",
      "Pod",
      "ReplicationController",
      "ReplicaSet",
      "Deployment",
      "HorizontalPodAutoscaler",
      "StatefulSet",
      "Job",
      "CronJob",
      "IngressClass",
      "Ingress",
      "APIService",
    ]);
  });

  it.each([
    { name: "Namespace ranks first", kind: "Namespace", rank: -35 },
    { name: "ConfigMap ranks tenth", kind: "ConfigMap", rank: -26 },
    { name: "APIService ranks last of the list", kind: "APIService", rank: -1 },
    { name: "an unknown kind ranks after every listed kind", kind: "MyCRD", rank: 0 },
    { name: "kinds are case-sensitive", kind: "namespace", rank: 0 },
  ])("$name", ({ kind, rank }) => {
    expect(kindRank(kind)).toBe(rank);
  });
});

describe("compareTasks", () => {
  it.each([
    {
      name: "a PreSync hook sorts before a Sync resource of a lower wave",
      a: task(obj("Job", "z"), { phase: "PreSync", hook: true }),
      b: task(obj("ConfigMap", "a", { annotations: wave(-5) })),
    },
    {
      name: "a lower wave sorts first within a phase",
      a: task(obj("Deployment", "a", { annotations: wave(-1) })),
      b: task(obj("Namespace", "a")),
    },
    {
      name: "the kind order decides within a wave",
      a: task(obj("ConfigMap", "z")),
      b: task(obj("Deployment", "a")),
    },
    {
      name: "the name decides within a kind",
      a: task(obj("ConfigMap", "a")),
      b: task(obj("ConfigMap", "b")),
    },
    {
      name: "a listed kind sorts before a custom resource",
      a: task(obj("APIService", "z")),
      b: task(obj("Widget", "a", { apiVersion: "example.com/v1" })),
    },
    {
      name: "two unknown kinds are ordered by name, not by kind",
      a: task(obj("Zebra", "a", { apiVersion: "example.com/v1" })),
      b: task(obj("Apple", "b", { apiVersion: "example.com/v1" })),
    },
    {
      name: "PostSync sorts before SyncFail",
      a: task(obj("Job", "b"), { phase: "PostSync", hook: true }),
      b: task(obj("Job", "a"), { phase: "SyncFail", hook: true }),
    },
    {
      name: "the wave override wins over the annotation",
      a: task(obj("ConfigMap", "b", { annotations: wave(5) }), { waveOverride: 1 }),
      b: task(obj("ConfigMap", "a", { annotations: wave(2) })),
    },
  ])("$name", ({ a, b }) => {
    expect(compareTasks(a, b)).toBeLessThan(0);
    expect(compareTasks(b, a)).toBeGreaterThan(0);
  });

  const kinds = ["Namespace", "ConfigMap", "Deployment", "Service", "Job", "Widget", "CustomResourceDefinition"];
  const arbTask: fc.Arbitrary<SyncTask> = fc
    .record({
      kind: fc.constantFrom(...kinds),
      name: fc.constantFrom("a", "b", "c"),
      namespace: fc.constantFrom("x", "y"),
      wave: fc.integer({ min: -2, max: 2 }),
      phase: fc.constantFrom("PreSync" as const, "Sync" as const, "PostSync" as const, "SyncFail" as const),
      prune: fc.boolean(),
      group: fc.constantFrom("v1", "example.com/v1"),
    })
    .map((r) =>
      task(obj(r.kind, r.name, { apiVersion: r.group, namespace: r.namespace, annotations: wave(r.wave) }), {
        phase: r.phase,
        prune: r.prune,
      }),
    );

  it("is a total order: antisymmetric, transitive, and zero only for identical sort keys", () => {
    fc.assert(
      fc.property(arbTask, arbTask, arbTask, (a, b, c) => {
        expect(Math.sign(compareTasks(a, b)) + Math.sign(compareTasks(b, a))).toBe(0);
        if (compareTasks(a, b) <= 0 && compareTasks(b, c) <= 0) expect(compareTasks(a, c)).toBeLessThanOrEqual(0);
        if (compareTasks(a, b) === 0) expect(JSON.stringify(a)).toBe(JSON.stringify(b));
      }),
      { numRuns: 2000 },
    );
  });

  it("sorts to the same order whatever the input order", () => {
    fc.assert(
      fc.property(fc.array(arbTask, { maxLength: 12 }), fc.integer(), (tasks, seed) => {
        const shuffled = [...tasks].sort((x, y) => ((JSON.stringify(x).length * seed) % 7) - ((JSON.stringify(y).length * seed) % 7));
        expect(sortTasks(shuffled).map((t) => JSON.stringify(t))).toEqual(sortTasks(tasks).map((t) => JSON.stringify(t)));
      }),
    );
  });
});

describe("sortTasks dependency adjustments", () => {
  it("moves a Namespace before a PreSync hook in it, taking the hook's phase and wave", () => {
    const ns = task(obj("Namespace", "apps", { annotations: wave(1) }));
    const hook = task(obj("Job", "migrate", { namespace: "apps", annotations: wave(-2) }), { phase: "PreSync", hook: true });
    const cm = task(obj("ConfigMap", "cfg", { namespace: "apps" }));
    const sorted = sortTasks([cm, ns, hook]);
    expect(sorted.map(label)).toEqual(["Namespace/apps", "Job/migrate", "ConfigMap/cfg"]);
    expect(sorted[0]?.phase).toBe("PreSync");
    expect(taskWave(sorted[0]!)).toBe(-2);
  });

  it("leaves a Namespace that already sorts first where it is, with its own wave", () => {
    const sorted = sortTasks([task(obj("ConfigMap", "cfg", { namespace: "apps" })), task(obj("Namespace", "apps"))]);
    expect(sorted.map(label)).toEqual(["Namespace/apps", "ConfigMap/cfg"]);
    expect(sorted[0]?.waveOverride).toBeUndefined();
  });

  it("does not move a Namespace for objects of another namespace", () => {
    const sorted = sortTasks([
      task(obj("Namespace", "apps", { annotations: wave(3) })),
      task(obj("ConfigMap", "cfg", { namespace: "other" })),
    ]);
    expect(sorted.map(label)).toEqual(["ConfigMap/cfg", "Namespace/apps"]);
  });

  it("moves a CRD before the first custom resource of its group and kind", () => {
    const crd = task(
      obj("CustomResourceDefinition", "widgets.example.com", {
        annotations: wave(2),
        spec: { group: "example.com", names: { kind: "Widget" } },
      }),
    );
    const cr = task(obj("Widget", "w1", { apiVersion: "example.com/v1", namespace: "apps" }));
    const other = task(obj("Gadget", "g1", { apiVersion: "example.com/v1", namespace: "apps" }));
    const sorted = sortTasks([crd, cr, other]);
    expect(sorted.map(label)).toEqual(["Gadget/g1", "CustomResourceDefinition/widgets.example.com", "Widget/w1"]);
    expect(taskWave(sorted[1]!)).toBe(0);
  });

  it("ignores prune tasks when looking for dependents", () => {
    const ns = task(obj("Namespace", "apps", { annotations: wave(1) }));
    const gone = task(obj("ConfigMap", "old", { namespace: "apps" }), { prune: true });
    const sorted = sortTasks([ns, gone]);
    expect(sorted.map(label)).toEqual(["ConfigMap/old", "Namespace/apps"]);
  });
});
