import { describe, expect, it } from "vitest";
import { obj } from "../../test/unit/syncwaves/builders.js";
import { compare } from "./compare.js";
import { isSubset } from "./subset.js";
import { buildTasks, isTrackedBy, prepareTarget } from "./build.js";
import { optionIs, pruneDisposition, propagationPolicy } from "./options.js";

describe("isSubset", () => {
  it.each([
    { name: "a field added live is not a difference", d: { a: 1 }, l: { a: 1, b: 2 }, ok: true },
    { name: "a changed value is a difference", d: { a: 1 }, l: { a: 2 }, ok: false },
    { name: "arrays compare element by element", d: [{ a: 1 }], l: [{ a: 1, x: 0 }], ok: true },
    { name: "arrays of different lengths differ", d: [1], l: [1, 2], ok: false },
    { name: "a missing nested object is a difference", d: { a: { b: 1 } }, l: {}, ok: false },
    { name: "null matches an absent field", d: { a: null }, l: {}, ok: true },
    { name: "empty values match an absent field", d: { a: [], b: {}, c: "", d: false, e: 0, f: { g: [] } }, l: {}, ok: true },
    { name: "an empty value does not match a different live one", d: { a: "" }, l: { a: "x" }, ok: false },
    { name: "a non-empty value does not match an absent field", d: { a: { b: 1 } }, l: {}, ok: false },
    {
      name: "quantities compare by value",
      d: { resources: { limits: { cpu: 1, memory: "1Gi" } } },
      l: { resources: { limits: { cpu: "1", memory: "1073741824" } } },
      ok: true,
    },
    { name: "milli quantities", d: { resources: { requests: { cpu: 0.5 } } }, l: { resources: { requests: { cpu: "500m" } } }, ok: true },
    {
      name: "different quantities differ",
      d: { resources: { requests: { cpu: "1" } } },
      l: { resources: { requests: { cpu: "2" } } },
      ok: false,
    },
    {
      name: "a quantity-like value outside a quantity field compares as text",
      d: { data: { cpu: 1 } },
      l: { data: { cpu: "1" } },
      ok: false,
    },
  ])("$name", ({ d, l, ok }) => {
    expect(isSubset(d, l)).toBe(ok);
  });
});

describe("compare", () => {
  const desired = prepareTarget(obj("ConfigMap", "cfg", { spec: { x: 1 } }), { appName: "app", destinationNamespace: "ns" });

  it("is Synced when the live object carries every desired field", () => {
    const live = {
      ...structuredClone(desired),
      metadata: { ...desired.metadata, uid: "u", resourceVersion: "7" },
      spec: { x: 1, defaulted: true },
    };
    const c = compare([desired], [live]);
    expect(c.sync).toBe("Synced");
    expect(c.resources).toEqual([{ group: "", version: "v1", kind: "ConfigMap", namespace: "ns", name: "cfg", status: "Synced" }]);
  });

  it("is OutOfSync when a desired object is missing, and the app health is Missing", () => {
    const c = compare([desired], []);
    expect(c.sync).toBe("OutOfSync");
    expect(c.health.status).toBe("Missing");
  });

  it("marks extraneous live objects as requiring pruning, unless they ignore extraneous", () => {
    const extra = prepareTarget(obj("ConfigMap", "old"), { appName: "app", destinationNamespace: "ns" });
    expect(compare([], [extra]).resources[0]).toMatchObject({ requiresPruning: true, status: "OutOfSync" });
    expect(compare([], [extra]).sync).toBe("OutOfSync");
    const ignored = {
      ...extra,
      metadata: {
        ...extra.metadata,
        annotations: { ...extra.metadata?.annotations, "argocd.argoproj.io/compare-options": "IgnoreExtraneous" },
      },
    };
    expect(compare([], [ignored]).sync).toBe("Synced");
  });

  it("leaves hooks out of the comparison", () => {
    const hook = prepareTarget(obj("Job", "h", { annotations: { "argocd.argoproj.io/hook": "PreSync" } }), {
      appName: "app",
      destinationNamespace: "ns",
    });
    expect(compare([hook], []).resources).toEqual([]);
  });

  it("compares a Secret's stringData with the base64 data the apiserver stores", () => {
    const secret = { ...prepareTarget(obj("Secret", "s"), { appName: "app", destinationNamespace: "ns" }), stringData: { p: "q" } };
    const { stringData: _s, ...stored } = structuredClone(secret);
    expect(compare([secret], [{ ...stored, data: { p: "cQ==" } }]).sync).toBe("Synced");
    expect(compare([secret], [{ ...stored, data: { p: "cg==" } }]).sync).toBe("OutOfSync");
  });

  const prep = (o: ReturnType<typeof obj>) => prepareTarget(o, { appName: "app", destinationNamespace: "ns" });

  it("lists a live hook as a hook requiring pruning, with its manifest's wave, no status and no health", () => {
    const annotations = { "argocd.argoproj.io/hook": "PreSync", "argocd.argoproj.io/sync-wave": "3" };
    const hook = prep(obj("Job", "h", { annotations }));
    const c = compare([desired, hook], [structuredClone(desired), structuredClone(hook)]);
    expect(c.resources).toEqual([
      { group: "", version: "v1", kind: "ConfigMap", namespace: "ns", name: "cfg", status: "Synced" },
      { group: "batch", version: "v1", kind: "Job", namespace: "ns", name: "h", hook: true, requiresPruning: true, syncWave: 3 },
    ]);
    expect(c.sync).toBe("Synced");
    expect(c.health.status).toBe("Healthy");
  });

  it("lists a `hook: Skip` target without a status or health, and it counts for neither", () => {
    const skipped = prep(obj("ConfigMap", "s", { annotations: { "argocd.argoproj.io/hook": "Skip" } }));
    const c = compare([], [], [skipped]);
    expect(c.resources).toEqual([{ group: "", version: "v1", kind: "ConfigMap", namespace: "ns", name: "s" }]);
    expect(c.sync).toBe("Synced");
    expect(compare([], [structuredClone(skipped)], [skipped]).resources[0]).not.toHaveProperty("requiresPruning");
  });

  it("shows no health for a live object that ignores health checks, Missing for a missing one", () => {
    const ignoring = prep(obj("ConfigMap", "i", { annotations: { "argocd.argoproj.io/ignore-healthcheck": "true" } }));
    expect(compare([ignoring], [structuredClone(ignoring)]).resources[0]).not.toHaveProperty("health");
    expect(compare([ignoring], []).resources[0]?.health).toEqual({ status: "Missing" });
  });
});

describe("task building", () => {
  const base = { appName: "app", destinationNamespace: "ns", revision: "r", startedAtMs: 0, skipHooks: false, appOptions: [] as string[] };

  it("fills in the destination namespace, except for kinds known to be cluster-scoped, and tracks every target", () => {
    const tasks = buildTasks({
      ...base,
      targets: [obj("ConfigMap", "a"), obj("ClusterRole", "r")],
      live: [],
      isNamespaced: (o) => o.kind !== "ClusterRole",
    });
    const [cm, role] = [tasks.find((t) => t.target?.kind === "ConfigMap")!, tasks.find((t) => t.target?.kind === "ClusterRole")!];
    expect(cm.target?.metadata?.namespace).toBe("ns");
    expect(role.target?.metadata?.namespace).toBeUndefined();
    expect(isTrackedBy(cm.target!, "app")).toBe(true);
  });

  it("does not track a CustomResourceDefinition, so one no longer in the manifests is neither listed nor pruned", () => {
    const crd = prepareTarget(obj("CustomResourceDefinition", "widgets.example.com", { apiVersion: "apiextensions.k8s.io/v1" }), {
      appName: "app",
      destinationNamespace: "ns",
      isNamespaced: () => false,
    });
    expect(crd.metadata?.annotations?.["argocd.argoproj.io/tracking-id"]).toBeUndefined();
    expect(isTrackedBy(crd, "app")).toBe(false);
    const cm = prepareTarget(obj("ConfigMap", "c"), { appName: "app", destinationNamespace: "ns" });
    expect(isTrackedBy(cm, "app")).toBe(true);
  });

  it("pairs a `hook: Skip` target with its live object: neither applied nor pruned", () => {
    const live = prepareTarget(obj("ConfigMap", "managed"), base);
    const tasks = buildTasks({
      ...base,
      targets: [obj("ConfigMap", "managed", { annotations: { "argocd.argoproj.io/hook": "Skip" } })],
      live: [live],
    });
    expect(tasks).toEqual([]);
  });

  it("drops Skip objects, garbage hooks and deletion-only hooks, and never prunes live hooks", () => {
    const hookLive = prepareTarget(obj("Job", "old-hook", { annotations: { "argocd.argoproj.io/hook": "PreSync" } }), base);
    const tasks = buildTasks({
      ...base,
      targets: [
        obj("ConfigMap", "skip", { annotations: { "argocd.argoproj.io/hook": "Skip" } }),
        obj("Job", "garbage", { annotations: { "argocd.argoproj.io/hook": "Foo" } }),
        obj("Job", "predelete", { annotations: { "argocd.argoproj.io/hook": "PreDelete" } }),
      ],
      live: [hookLive],
    });
    expect(tasks).toEqual([]);
  });

  it("skips hooks for selective syncs and keeps only the selected resources", () => {
    const tasks = buildTasks({
      ...base,
      skipHooks: true,
      targets: [obj("ConfigMap", "a"), obj("ConfigMap", "b"), obj("Job", "h", { annotations: { "argocd.argoproj.io/hook": "PreSync" } })],
      live: [],
      selected: [{ kind: "ConfigMap", name: "b", namespace: "ns" }],
    });
    expect(tasks.map((t) => t.target?.metadata?.name)).toEqual(["b"]);
  });

  it.each([
    { name: "an entry without a namespace selects the object in any namespace", namespace: undefined, want: ["b"] },
    { name: "an entry with the object's namespace selects it", namespace: "ns", want: ["b"] },
    { name: "an entry with another namespace selects nothing", namespace: "other", want: [] },
  ])("$name", ({ namespace, want }) => {
    const tasks = buildTasks({
      ...base,
      skipHooks: true,
      targets: [obj("ConfigMap", "a"), obj("ConfigMap", "b")],
      live: [],
      selected: [{ kind: "ConfigMap", name: "b", ...(namespace ? { namespace } : {}) }],
    });
    expect(tasks.map((t) => t.target?.metadata?.name)).toEqual(want);
  });

  it("adds a PreSync Namespace task for CreateNamespace=true when the namespace is missing", () => {
    const tasks = buildTasks({
      ...base,
      appOptions: ["CreateNamespace=true"],
      targets: [obj("ConfigMap", "a")],
      live: [],
      namespaceExists: false,
    });
    expect(tasks.map((t) => [t.phase, t.target?.kind])).toEqual([
      ["PreSync", "Namespace"],
      ["Sync", "ConfigMap"],
    ]);
    const none = buildTasks({
      ...base,
      appOptions: ["CreateNamespace=true"],
      targets: [obj("ConfigMap", "a")],
      live: [],
      namespaceExists: true,
    });
    expect(none).toHaveLength(1);
  });
});

describe("sync options", () => {
  it.each([
    { name: "a prune without the prune flag is skipped", live: obj("ConfigMap", "a"), app: [], prune: false, action: "skip" },
    {
      name: "Prune=false on the live object skips it",
      live: obj("ConfigMap", "a", { annotations: { "argocd.argoproj.io/sync-options": "Prune=false" } }),
      app: [],
      prune: true,
      action: "skip",
    },
    { name: "Prune=false for the app skips it", live: obj("ConfigMap", "a"), app: ["Prune=false"], prune: true, action: "skip" },
    {
      name: "the resource's Prune=true overrides the app's Prune=false",
      live: obj("ConfigMap", "a", { annotations: { "argocd.argoproj.io/sync-options": "Prune=true" } }),
      app: ["Prune=false"],
      prune: true,
      action: "delete",
    },
    {
      name: "Prune=confirm waits for confirmation",
      live: obj("ConfigMap", "a", { annotations: { "argocd.argoproj.io/sync-options": "Prune=confirm" } }),
      app: [],
      prune: true,
      action: "confirm",
    },
  ])("$name", ({ live, app, prune, action }) => {
    expect(pruneDisposition(live, app, prune).action).toBe(action);
  });

  it("reads the propagation policy, foreground by default", () => {
    expect(propagationPolicy([])).toBe("Foreground");
    expect(propagationPolicy(["PrunePropagationPolicy=orphan"])).toBe("Orphan");
  });

  it("lets a resource turn off the app's server-side apply", () => {
    const o = obj("ConfigMap", "a", { annotations: { "argocd.argoproj.io/sync-options": "ServerSideApply=false" } });
    expect(optionIs(["ServerSideApply=true"], "ServerSideApply", "true", o)).toBe(false);
    expect(optionIs(["ServerSideApply=true"], "ServerSideApply", "true", obj("ConfigMap", "b"))).toBe(true);
  });
});
