import { describe, expect, it } from "vitest";
import type { ApplicationSet } from "../api/index.js";
import { affectedByCluster, affectedByProject, appChanged, appSetChanged, ownerKey } from "./predicates.js";
import { appSet, live } from "../../test/support/controller-builders.js";

const base = appSet("guestbook");
const refresh = "argocd.argoproj.io/application-set-refresh";

describe("appSetChanged", () => {
  it.each([
    { name: "a spec change enqueues", next: appSet("guestbook", { spec: { goTemplate: true } }), want: true },
    { name: "a label change enqueues", next: appSet("guestbook", { metadata: { labels: { a: "b" } } }), want: true },
    { name: "a status-only change does not", next: appSet("guestbook", { status: { conditions: [], resourcesCount: 3 } }), want: false },
    { name: "an added annotation enqueues", next: appSet("guestbook", { metadata: { annotations: { x: "y" } } }), want: true },
    { name: "an empty label map equals none", next: appSet("guestbook", { metadata: { labels: {} } }), want: false },
    {
      name: "a label with an empty value is a change (a Go map entry)",
      next: appSet("guestbook", { metadata: { labels: { team: "" } } }),
      want: true,
    },
  ])("$name", ({ next, want }) => {
    expect(appSetChanged(base, next, false)).toBe(want);
  });

  it("does not enqueue when the refresh annotation is removed, even with another annotation change", () => {
    const before = appSet("guestbook", { metadata: { annotations: { [refresh]: "true", a: "1" } } });
    const after = appSet("guestbook", { metadata: { annotations: { a: "2" } } });
    expect(appSetChanged(before, after, false)).toBe(false);
  });
});

describe("appChanged", () => {
  it("enqueues for a newly compared spec with Progressive Syncs only", () => {
    const was = live("a", owner, { status: { health: { status: "Healthy" }, sync: { status: "Synced" } } });
    const now = live("a", owner, {
      status: { health: { status: "Healthy" }, sync: { status: "Synced", comparedTo: { destination: { namespace: "x" } } } },
    });
    expect([appChanged(was, now, true), appChanged(was, now, false)]).toEqual([true, false]);
  });

  const owner = appSet("guestbook");
  const a = live("a", owner, { status: { health: { status: "Healthy" } } });
  it.each([
    { name: "a spec change enqueues", next: live("a", owner, { spec: { project: "x" } }), ps: false, want: true },
    {
      name: "a health change alone does not without Progressive Syncs",
      next: live("a", owner, { status: { health: { status: "Degraded" } } }),
      ps: false,
      want: false,
    },
    {
      name: "a health change enqueues with Progressive Syncs",
      next: live("a", owner, { status: { health: { status: "Degraded" } } }),
      ps: true,
      want: true,
    },
    {
      name: "a resourceVersion change alone does not",
      next: live("a", owner, { metadata: { resourceVersion: "99" }, status: { health: { status: "Healthy" } } }),
      ps: true,
      want: false,
    },
    {
      name: "a first reconcile enqueues with Progressive Syncs",
      next: live("a", owner, { status: { health: { status: "Healthy" }, reconciledAt: "2026-01-01T00:00:00Z" } }),
      ps: true,
      want: true,
    },

    {
      name: "an annotation with an empty value enqueues",
      next: live("a", owner, { metadata: { annotations: { note: "" } } }),
      ps: false,
      want: true,
    },
  ])("$name", ({ next, ps, want }) => {
    expect(appChanged(a, next, ps)).toBe(want);
  });

  it("maps an Application to its controller owner", () => {
    expect(ownerKey(a)).toBe("argocd/guestbook");
    expect(ownerKey(live("b", null))).toBeUndefined();
  });
});

describe("affectedByCluster", () => {
  const withClusters = (name: string, selector?: object): ApplicationSet =>
    appSet(name, {
      spec: { generators: [{ matrix: { generators: [{ clusters: selector ? { selector } : {} }, { list: { elements: [] } }] } }] as never },
    });
  it("requeues only ApplicationSets whose Cluster generator selects the Secret", () => {
    const sets = [
      withClusters("all"),
      withClusters("prod", { matchLabels: { env: "prod" } }),
      withClusters("dev", { matchLabels: { env: "dev" } }),
      appSet("list-only"),
    ];
    expect(affectedByCluster(sets, [{ env: "prod" }]).map((s) => s.metadata.name)).toEqual(["all", "prod"]);
  });
});

describe("affectedByProject", () => {
  const withProject = (name: string, project: string, over: Partial<ApplicationSet["spec"]> = {}): ApplicationSet =>
    appSet(name, {
      spec: {
        template: { metadata: { name: "{{name}}" }, spec: { project, destination: { server: "https://kubernetes.default.svc" } } },
        ...over,
      },
    });
  const failing = appSet("failing", {
    status: {
      conditions: [
        {
          type: "ErrorOccurred",
          status: "True",
          reason: "ApplicationValidationError",
          message: "m",
          lastTransitionTime: "2026-01-01T00:00:00Z",
        },
      ],
    },
  });
  it.each([
    { name: "the template names the project", set: withProject("s", "team-a"), want: true },
    { name: "the template names another project", set: withProject("s", "team-b"), want: false },
    { name: "the project is a template expression", set: withProject("s", "{{name}}-proj"), want: true },
    { name: "a templatePatch may set the project", set: withProject("s", "team-b", { templatePatch: "spec: {}" }), want: true },
    {
      name: "a generator's template may set the project",
      set: withProject("s", "team-b", {
        generators: [{ list: { elements: [], template: { metadata: {}, spec: { project: "team-a" } } } }] as never,
      }),
      want: true,
    },
    { name: "the cached status shows a validation error", set: failing, want: true },
  ])("requeues an ApplicationSet when $name: $want", ({ set, want }) => {
    expect(affectedByProject([set], "team-a").length === 1).toBe(want);
  });
});
