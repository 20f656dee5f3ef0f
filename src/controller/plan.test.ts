import { describe, expect, it } from "vitest";
import type { Application, ApplicationSet, ApplicationsSyncPolicy } from "../api/index.js";
import { planAppSet } from "./plan.js";
import type { Plan } from "./plan-types.js";
import type { AppSetSnapshot, PlanSettings } from "./snapshot.js";
import { appSet, cluster, generated, live, rendered, settings, snapshot, NS } from "../../test/support/controller-builders.js";

const NOW = Date.UTC(2026, 0, 2, 3, 4, 5);
const NOW_TEXT = "2026-01-02T03:04:05Z";
const MIN3 = 180_000;
const BIG_BYTES = Buffer.byteLength(JSON.stringify(rendered("big", { metadata: { annotations: { blob: "b".repeat(1_100_000) } } })));
const BIG = `application big is ${String(BIG_BYTES)} bytes as JSON, more than the 1048576 an Application may have (with room left for its status); make the template produce less`;

const owner = appSet("guestbook");
const ok = "All applications have been generated successfully";
const params = "All parameters have been generated successfully";
const SUCCESS = [
  ["ErrorOccurred", "False", "ApplicationSetUpToDate", ok],
  ["ParametersGenerated", "True", "ParametersGenerated", params],
  ["ResourcesUpToDate", "True", "ApplicationSetUpToDate", ok],
];

/** The comparable gist of a plan. */
function gist(plan: Plan) {
  return {
    creates: plan.writes.filter((w) => w.change.kind === "create").map((w) => w.name),
    updates: plan.writes.filter((w) => w.change.kind === "update").map((w) => w.name),
    errors: plan.writes.flatMap((w) => (w.change.kind === "error" ? [`${w.name}: ${w.change.message}`] : [])),
    deletes: plan.deletes.map((d) => `${d.name}${d.delete ? "" : " (no delete)"}${d.keepFinalizers ? " -finalizer" : ""}`),
    strips: plan.ownerStrips.map((s) => s.name),
    conditions: plan.status?.conditions?.map((c) => [c.type, c.status, c.reason, c.message]),
    requeueAfterMs: plan.requeueAfterMs,
  };
}

/** A status as a previous successful pass over `apps` would have written it. */
function settledStatus(apps: Application[]): ApplicationSet["status"] {
  const conditions = SUCCESS.map(([type, status, reason, message]) => ({
    type: type!,
    status: status!,
    reason: reason!,
    message: message!,
    lastTransitionTime: "2025-01-01T00:00:00Z",
  }));
  const resources = apps.map((a) => ({
    group: "argoproj.io",
    version: "v1alpha1",
    kind: "Application",
    name: a.metadata.name,
    namespace: NS,
    health: {},
  }));
  return { conditions, resources, resourcesCount: apps.length, health: { status: "Healthy", message: ok } };
}

const settledOwner = appSet("guestbook", { status: settledStatus([live("a", owner)]) });

interface Row {
  /** What the row shows. */
  name: string;
  /** The snapshot the planner sees. */
  snap: AppSetSnapshot;
  /** Controller settings (defaults otherwise). */
  cfg?: Partial<PlanSettings>;
  /** The expected gist (only the listed fields are compared). */
  want: Partial<ReturnType<typeof gist>>;
}

const policyOwner = (p: ApplicationsSyncPolicy): ApplicationSet => appSet("guestbook", { spec: { syncPolicy: { applicationsSync: p } } });

const rows: Row[] = [
  {
    name: "creates every generated Application that does not exist and reports success",
    snap: snapshot({ appSet: owner, generation: generated([rendered("a"), rendered("b")]) }),
    want: { creates: ["a", "b"], updates: [], deletes: [], conditions: SUCCESS, requeueAfterMs: 0 },
  },
  {
    name: "writes nothing at all when the live Applications and the status already match",
    snap: snapshot({ appSet: settledOwner, owned: [live("a", owner)], generation: generated([rendered("a")]) }),
    want: { creates: [], updates: [], deletes: [], conditions: undefined },
  },
  {
    name: "updates an owned Application whose spec differs from the template",
    snap: snapshot({ appSet: owner, owned: [live("a", owner, { spec: { project: "other" } })], generation: generated([rendered("a")]) }),
    want: { creates: [], updates: ["a"] },
  },
  {
    name: "adopts an existing Application that no controller owns",
    snap: snapshot({ appSet: owner, live: new Map([["a", live("a", null)]]), generation: generated([rendered("a")]) }),
    want: { creates: [], updates: ["a"] },
  },
  {
    name: "refuses an Application another controller owns, with controller-runtime's message",
    snap: snapshot({ appSet: owner, live: new Map([["a", live("a", appSet("other"))]]), generation: generated([rendered("a")]) }),
    want: {
      errors: ["a: error while wrapping using MutateFn: Object argocd/a is already owned by another ApplicationSet controller other"],
    },
  },
  {
    name: "deletes owned Applications that are no longer generated under the sync policy",
    snap: snapshot({ appSet: owner, owned: [live("a", owner), live("gone", owner)], generation: generated([rendered("a")]) }),
    want: { creates: [], updates: [], deletes: ["gone"] },
  },
  {
    name: "keeps stale Applications under create-update but updates the others",
    snap: snapshot({
      appSet: policyOwner("create-update"),
      owned: [live("a", owner, { spec: { project: "x" } }), live("gone", owner)],
      generation: generated([rendered("a")]),
    }),
    want: { updates: ["a"], deletes: [] },
  },
  {
    name: "under create-only creates missing Applications only",
    snap: snapshot({
      appSet: policyOwner("create-only"),
      owned: [live("a", owner, { spec: { project: "x" } }), live("gone", owner)],
      generation: generated([rendered("a"), rendered("b")]),
    }),
    want: { creates: ["b"], updates: [], deletes: [] },
  },
  {
    name: "under create-delete deletes stale Applications but does not update",
    snap: snapshot({
      appSet: policyOwner("create-delete"),
      owned: [live("a", owner, { spec: { project: "x" } }), live("gone", owner)],
      generation: generated([rendered("a")]),
    }),
    want: { updates: [], deletes: ["gone"] },
  },
  {
    name: "ignores the ApplicationSet's policy when override is disabled",
    snap: snapshot({ appSet: policyOwner("create-only"), owned: [live("gone", owner)], generation: generated([]) }),
    cfg: { enablePolicyOverride: false, policy: "sync" },
    want: { deletes: ["gone"] },
  },
  {
    name: "applies the controller's --policy when the ApplicationSet sets none",
    snap: snapshot({ appSet: owner, owned: [live("gone", owner)], generation: generated([]) }),
    cfg: { policy: "create-update" },
    want: { deletes: [] },
  },
  {
    name: "on a generator failure touches no Application and sets the error conditions",
    snap: snapshot({
      appSet: owner,
      owned: [live("a", owner)],
      generation: { ok: false, reason: "ApplicationGenerationFromParamsError", message: "boom" },
    }),
    want: {
      creates: [],
      updates: [],
      deletes: [],
      conditions: [
        ["ErrorOccurred", "True", "ApplicationGenerationFromParamsError", "boom"],
        ["ParametersGenerated", "False", "ErrorOccurred", "boom"],
        ["ResourcesUpToDate", "False", "ErrorOccurred", "boom"],
      ],
      requeueAfterMs: MIN3,
    },
  },
  {
    name: "warns of an empty generator list in a condition of its own, deletes the stale Application as Argo CD does, and stays Healthy",
    snap: snapshot({ appSet: appSet("guestbook", { spec: { generators: [] } }), owned: [live("a", owner)], generation: generated([]) }),
    want: {
      deletes: ["a"],
      conditions: [
        ...SUCCESS,
        [
          "SpecWarning",
          "True",
          "NoGenerators",
          "spec.generators is empty: no Application is generated, and under the sync and create-delete policies existing ones are deleted",
        ],
      ],
    },
  },
  {
    name: "refuses to update an existing Application when an ignore rule's jq does not parse (for any name), and still creates new ones",
    snap: snapshot({
      appSet: appSet("guestbook", { spec: { ignoreApplicationDifferences: [{ name: "other", jqPathExpressions: [".spec.["] }] } }),
      owned: [live("a", owner, { spec: { project: "old" } })],
      generation: generated([rendered("a"), rendered("b")]),
    }),
    want: {
      creates: ["b"],
      updates: [],
      errors: ['a: failed to apply ignore differences: failed to normalize application spec: unexpected token ")"'],
    },
  },
  {
    name: "keeps the warning on a generator failure",
    snap: snapshot({
      appSet: appSet("guestbook", { spec: { generators: [{ list: { elements: [] } }, {}] } }),
      generation: { ok: false, reason: "ApplicationGenerationFromParamsError", message: "boom" },
    }),
    want: {
      conditions: [
        ["ErrorOccurred", "True", "ApplicationGenerationFromParamsError", "boom"],
        ["ParametersGenerated", "False", "ErrorOccurred", "boom"],
        ["ResourcesUpToDate", "False", "ErrorOccurred", "boom"],
        ["SpecWarning", "True", "UnrecognizedGenerator", expect.stringMatching(/^spec\.generators\[1\] sets no generator: /) as string],
      ],
    },
  },
  {
    name: "removes the warning once the spec is fixed",
    snap: snapshot({
      appSet: appSet("guestbook", {
        status: {
          ...settledStatus([]),
          conditions: [
            ...settledStatus([])!.conditions!,
            { type: "SpecWarning", status: "True", reason: "NoGenerators", message: "x", lastTransitionTime: "2025-01-01T00:00:00Z" },
          ],
        },
      }),
      generation: generated([]),
    }),
    want: { conditions: SUCCESS },
  },
  {
    name: "on a generator failure comes back as soon as the generators' requeueAfterSeconds asks, when that is sooner than 3 minutes",
    snap: snapshot({
      appSet: owner,
      generation: { ok: false, reason: "ApplicationGenerationFromParamsError", message: "boom", requeueAfterMs: 30_000 },
    }),
    want: {
      creates: [],
      conditions: [
        ["ErrorOccurred", "True", "ApplicationGenerationFromParamsError", "boom"],
        ["ParametersGenerated", "False", "ErrorOccurred", "boom"],
        ["ResourcesUpToDate", "False", "ErrorOccurred", "boom"],
      ],
      requeueAfterMs: 30_000,
    },
  },
  {
    name: "reports an Application larger than 1 MiB, skips it and keeps the valid one",
    snap: snapshot({
      appSet: owner,
      generation: generated([rendered("a"), rendered("big", { metadata: { annotations: { blob: "b".repeat(1_100_000) } } })]),
    }),
    want: {
      creates: ["a"],
      conditions: [
        ["ErrorOccurred", "True", "ApplicationValidationError", BIG],
        ["ParametersGenerated", "True", "ParametersGenerated", params],
        ["ResourcesUpToDate", "False", "ErrorOccurred", BIG],
      ],
      requeueAfterMs: MIN3,
    },
  },
  {
    name: "reports a missing project, skips that Application and keeps the valid one",
    snap: snapshot({ appSet: owner, generation: generated([rendered("a"), rendered("b", { spec: { project: "nope" } })]) }),
    want: {
      creates: ["a"],
      conditions: [
        ["ErrorOccurred", "True", "ApplicationValidationError", "application references project nope which does not exist"],
        ["ParametersGenerated", "True", "ParametersGenerated", params],
        ["ResourcesUpToDate", "False", "ErrorOccurred", "application references project nope which does not exist"],
      ],
      requeueAfterMs: MIN3,
    },
  },
  {
    name: "reports an empty project as missing (it is not `default` to the ApplicationSet controller)",
    snap: snapshot({ appSet: owner, generation: generated([rendered("a", { spec: { project: "" } })]) }),
    want: {
      creates: [],
      conditions: [
        ["ErrorOccurred", "True", "ApplicationValidationError", "application references project  which does not exist"],
        ["ParametersGenerated", "True", "ParametersGenerated", params],
        ["ResourcesUpToDate", "False", "ErrorOccurred", "application references project  which does not exist"],
      ],
      requeueAfterMs: MIN3,
    },
  },
  {
    name: "excludes every Application with a duplicate name and names the last failure with the count of the others",
    snap: snapshot({ appSet: owner, generation: generated([rendered("d"), rendered("d"), rendered("z", { spec: { project: "nope" } })]) }),
    want: {
      creates: [],
      conditions: [
        ["ErrorOccurred", "True", "ApplicationValidationError", "application references project nope which does not exist (and 1 more)"],
        ["ParametersGenerated", "True", "ParametersGenerated", params],
        ["ResourcesUpToDate", "False", "ErrorOccurred", "application references project nope which does not exist (and 1 more)"],
      ],
    },
  },
  {
    name: "reports an Application without a name",
    snap: snapshot({ appSet: owner, generation: generated([rendered("")]) }),
    want: {
      conditions: [
        [
          "ErrorOccurred",
          "True",
          "ApplicationValidationError",
          "ApplicationSet guestbook contains an application with no name; a name must be set in the template's metadata.name or via a templatePatch (generateName is not supported)",
        ],
        ["ParametersGenerated", "True", "ParametersGenerated", params],
        [
          "ResourcesUpToDate",
          "False",
          "ErrorOccurred",
          "ApplicationSet guestbook contains an application with no name; a name must be set in the template's metadata.name or via a templatePatch (generateName is not supported)",
        ],
      ],
    },
  },
  {
    name: "reports a destination that names an unknown cluster and never deletes the invalid Application",
    snap: snapshot({
      appSet: owner,
      owned: [live("a", owner)],
      generation: generated([rendered("a", { spec: { destination: { name: "nowhere" } } })]),
    }),
    want: {
      updates: [],
      deletes: [],
      conditions: [
        [
          "ErrorOccurred",
          "True",
          "ApplicationValidationError",
          "application destination spec is invalid: there are no clusters with this name: nowhere",
        ],
        ["ParametersGenerated", "True", "ParametersGenerated", params],
        [
          "ResourcesUpToDate",
          "False",
          "ErrorOccurred",
          "application destination spec is invalid: there are no clusters with this name: nowhere",
        ],
      ],
    },
  },
  {
    name: 'refuses the in-cluster destination while argocd-cm turns it off (cluster.inClusterEnabled: "false")',
    snap: snapshot({
      appSet: owner,
      generation: generated([rendered("a", { spec: { destination: { server: "https://kubernetes.default.svc" } } })]),
    }),
    cfg: { inClusterEnabled: false },
    want: {
      updates: [],
      conditions: [
        [
          "ErrorOccurred",
          "True",
          "ApplicationValidationError",
          'application destination spec is invalid: error getting cluster by server "https://kubernetes.default.svc": rpc error: code = NotFound desc = cluster "https://kubernetes.default.svc" is disabled',
        ],
        ["ParametersGenerated", "True", "ParametersGenerated", params],
        [
          "ResourcesUpToDate",
          "False",
          "ErrorOccurred",
          'application destination spec is invalid: error getting cluster by server "https://kubernetes.default.svc": rpc error: code = NotFound desc = cluster "https://kubernetes.default.svc" is disabled',
        ],
      ],
    },
  },
  {
    name: "accepts a destination named after a cluster Secret and a server with a trailing slash",
    snap: snapshot({
      appSet: owner,
      clusters: [cluster("prod", "https://prod.example.com")],
      generation: generated([
        rendered("a", { spec: { destination: { name: "prod" } } }),
        rendered("b", { spec: { destination: { server: "https://prod.example.com/" } } }),
      ]),
    }),
    want: { creates: ["a", "b"], conditions: SUCCESS },
  },
  {
    name: "removes the resources finalizer before deleting a stale Application whose cluster is gone",
    snap: snapshot({
      appSet: owner,
      owned: [live("gone", owner, { spec: { destination: { server: "https://old.example.com" } } })],
      generation: generated([]),
    }),
    want: { deletes: ["gone -finalizer"] },
  },
  {
    name: "does not delete again a stale Application that is already terminating",
    snap: snapshot({
      appSet: owner,
      owned: [live("gone", owner, { metadata: { deletionTimestamp: "2026-01-01T00:00:00Z" } })],
      generation: generated([]),
    }),
    want: { deletes: [] },
  },
  {
    name: "requeues after the generators' interval on success",
    snap: snapshot({ appSet: owner, generation: generated([rendered("a")], 30_000) }),
    want: { requeueAfterMs: 30_000 },
  },
  {
    name: "on deletion under create-only strips the owner references of the Applications",
    snap: snapshot({
      appSet: appSet("guestbook", {
        spec: { syncPolicy: { applicationsSync: "create-only" } },
        metadata: { deletionTimestamp: "2026-01-01T00:00:00Z", finalizers: ["resources-finalizer.argocd.argoproj.io"] },
      }),
      owned: [live("a", owner)],
      generation: undefined,
    }),
    want: { creates: [], deletes: [], strips: ["a"], conditions: undefined },
  },
  {
    name: "on deletion under sync leaves the Applications to garbage collection",
    snap: snapshot({
      appSet: appSet("guestbook", { metadata: { deletionTimestamp: "2026-01-01T00:00:00Z" } }),
      owned: [live("a", owner)],
      generation: undefined,
    }),
    want: { creates: [], deletes: [], strips: [] },
  },
];

describe("planAppSet", () => {
  it.each(rows)("$name", ({ snap, cfg, want }) => {
    const g = gist(planAppSet(snap, NOW, settings(cfg)));
    expect(Object.fromEntries(Object.keys(want).map((k) => [k, g[k as keyof typeof g]]))).toEqual(want);
  });

  it("stamps new conditions with the planning time and keeps the time of unchanged ones", () => {
    const first = planAppSet(snapshot({ appSet: owner, generation: generated([rendered("a")]) }), NOW, settings());
    expect(first.status?.conditions?.every((c) => c.lastTransitionTime === NOW_TEXT)).toBe(true);
    const again = planAppSet(snapshot({ appSet: { ...owner, status: first.status }, generation: generated([]) }), NOW + 60_000, settings());
    expect(again.status?.conditions?.every((c) => c.lastTransitionTime === NOW_TEXT)).toBe(true);
  });

  it("takes the Application size limit from --max-application-bytes", () => {
    const plan = planAppSet(
      snapshot({ appSet: owner, generation: generated([rendered("a")]) }),
      NOW,
      settings({ maxApplicationBytes: 100 }),
    );
    expect({ writes: plan.writes.length, error: plan.status?.conditions?.find((c) => c.type === "ErrorOccurred")?.message }).toEqual({
      writes: 0,
      error: expect.stringMatching(/^application a is \d+ bytes as JSON, more than the 100 an Application may have/) as unknown,
    });
  });

  it("removes the refresh annotation after every pass, a generator failure included, locked to the resourceVersion", () => {
    const refreshing = appSet("guestbook", {
      metadata: { annotations: { "argocd.argoproj.io/application-set-refresh": "true", team: "a" } },
    });
    const removal = { metadata: { annotations: { "argocd.argoproj.io/application-set-refresh": null }, resourceVersion: "10" } };
    expect(planAppSet(snapshot({ appSet: refreshing, generation: generated([]) }), NOW, settings()).appSetPatch).toEqual(removal);
    const failed = planAppSet(
      snapshot({ appSet: refreshing, generation: { ok: false, reason: "RenderTemplateParamsError", message: "bad" } }),
      NOW,
      settings(),
    );
    expect(failed.appSetPatch).toEqual(removal);
  });

  it("writes the owned Applications into status.resources sorted by name, truncated with a warning", () => {
    const apps = ["c", "a", "b"].map((n) => live(n, owner, { status: { sync: { status: "Synced" }, health: { status: "Healthy" } } }));
    const plan = planAppSet(
      snapshot({ appSet: owner, owned: apps, generation: generated(["a", "b", "c"].map((n) => rendered(n))) }),
      NOW,
      settings({ maxResourcesStatusCount: 2 }),
    );
    expect(plan.status?.resources).toEqual([
      {
        group: "argoproj.io",
        version: "v1alpha1",
        kind: "Application",
        name: "a",
        namespace: NS,
        status: "Synced",
        health: { status: "Healthy" },
      },
      {
        group: "argoproj.io",
        version: "v1alpha1",
        kind: "Application",
        name: "b",
        namespace: NS,
        status: "Synced",
        health: { status: "Healthy" },
      },
    ]);
    expect(plan.status?.resourcesCount).toBe(3);
    expect(plan.warnings).toEqual(["Truncating ApplicationSet guestbook resource status from 3 to max allowed 2 entries"]);
  });

  it("removes the finalizer of a deleted ApplicationSet with a merge patch guarded by its resourceVersion", () => {
    const deleting = appSet("guestbook", {
      metadata: { deletionTimestamp: "2026-01-01T00:00:00Z", finalizers: ["resources-finalizer.argocd.argoproj.io", "x/y"] },
    });
    expect(planAppSet(snapshot({ appSet: deleting, generation: undefined }), NOW, settings()).appSetPatch).toEqual({
      metadata: { finalizers: ["x/y"], resourceVersion: "10" },
    });
  });

  it("uses CreateApplicationError as the write error reason when the policy forbids updates", () => {
    expect(planAppSet(snapshot({ appSet: policyOwner("create-only"), generation: generated([]) }), NOW, settings()).writeErrorReason).toBe(
      "CreateApplicationError",
    );
    expect(planAppSet(snapshot({ appSet: owner, generation: generated([]) }), NOW, settings()).writeErrorReason).toBe(
      "UpdateApplicationError",
    );
  });
});
