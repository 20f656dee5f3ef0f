import { describe, expect, it } from "vitest";
import type { Application, OperationState } from "../api/index.js";
import { comparisonErrorStatus, nextApplication, needsWrite, type AppUpdate } from "./app-status.js";
import { currentOperation } from "./reconcile.js";

const base = (over: Partial<Application["metadata"]> = {}, status: Application["status"] = {}): Application => ({
  apiVersion: "argoproj.io/v1alpha1",
  kind: "Application",
  metadata: { name: "a", namespace: "argocd", ...over },
  spec: { project: "default", destination: { namespace: "ns" }, source: { repoURL: "r" } },
  status,
});

const update = (over: Partial<AppUpdate> = {}): AppUpdate => ({
  state: undefined,
  operation: undefined,
  comparison: { sync: "Synced", health: { status: "Healthy" }, resources: [], modified: new Map() },
  revision: "abc",
  source: { repoURL: "r" },
  deletionHooks: { pre: false, post: false },
  nowMs: Date.UTC(2030, 0, 1),
  ...over,
});

const succeeded: OperationState = {
  operation: { sync: {} },
  phase: "Succeeded",
  startedAt: "2030-01-01T00:00:00Z",
  syncResult: { revision: "abc" },
};

describe("the Application a reconcile writes", () => {
  it.each([
    {
      name: "adds the PostDelete finalizers when the manifests have PostDelete hooks",
      app: base(),
      hooks: { pre: false, post: true },
      want: ["post-delete-finalizer.argocd.argoproj.io", "post-delete-finalizer.argocd.argoproj.io/cleanup"],
    },
    {
      name: "drops the PreDelete finalizers when the hooks are gone",
      app: base({ finalizers: ["x", "pre-delete-finalizer.argocd.argoproj.io"] }),
      hooks: { pre: false, post: false },
      want: ["x"],
    },
    {
      name: "leaves a deleted Application's finalizers to deletion",
      app: base({ finalizers: ["pre-delete-finalizer.argocd.argoproj.io"], deletionTimestamp: "2030-01-01T00:00:00Z" }),
      hooks: { pre: false, post: false },
      want: ["pre-delete-finalizer.argocd.argoproj.io"],
    },
  ])("$name", ({ app, hooks, want }) => {
    expect(nextApplication(app, update({ deletionHooks: hooks })).metadata.finalizers).toEqual(want);
  });

  it("sets the SyncError condition automated sync reports, keeps its time while the message holds, and removes it after", () => {
    const first = nextApplication(base({}, { conditions: [{ type: "ComparisonError", message: "x" }] }), update({ syncError: "refused" }));
    expect(first.status?.conditions).toEqual([{ type: "SyncError", message: "refused", lastTransitionTime: "2030-01-01T00:00:00Z" }]);
    const again = nextApplication(first, update({ syncError: "refused", nowMs: Date.UTC(2030, 0, 2) }));
    expect(again.status?.conditions?.[0]?.lastTransitionTime).toBe("2030-01-01T00:00:00Z");
    const changed = nextApplication(first, update({ syncError: "other", nowMs: Date.UTC(2030, 0, 2) }));
    expect(changed.status?.conditions?.[0]).toEqual({ type: "SyncError", message: "other", lastTransitionTime: "2030-01-02T00:00:00Z" });
    expect(nextApplication(again, update()).status?.conditions).toBeUndefined();
  });

  it("sets a RepeatedResourceWarning per repeated object while the manifests repeat it, and keeps other conditions", () => {
    const message = "Resource /ConfigMap/ns/a appeared 2 times among application resources.";
    const start = base({}, { conditions: [{ type: "DeletionError", message: "d" }] });
    const first = nextApplication(start, update({ repeated: [message] }));
    expect(first.status?.conditions).toEqual([
      { type: "DeletionError", message: "d" },
      { type: "RepeatedResourceWarning", message, lastTransitionTime: "2030-01-01T00:00:00Z" },
    ]);
    const again = nextApplication(first, update({ repeated: [message], nowMs: Date.UTC(2030, 0, 2) }));
    expect(again.status?.conditions?.[1]?.lastTransitionTime).toBe("2030-01-01T00:00:00Z");
    expect(nextApplication(again, update()).status?.conditions).toEqual([{ type: "DeletionError", message: "d" }]);
  });

  it("sets an ExcludedResourceWarning per excluded target while it is excluded", () => {
    const message = "Resource /Secret token is excluded in the settings";
    const first = nextApplication(base({}), update({ excluded: [message] }));
    expect(first.status?.conditions).toEqual([{ type: "ExcludedResourceWarning", message, lastTransitionTime: "2030-01-01T00:00:00Z" }]);
    expect(nextApplication(first, update()).status?.conditions).toBeUndefined();
  });

  it("consumes the refresh annotation and always writes when one was set", () => {
    const app = base({ annotations: { "argocd.argoproj.io/refresh": "normal", keep: "1" } }, { reconciledAt: "2029-01-01T00:00:00Z" });
    const next = nextApplication(app, update());
    expect(next.metadata.annotations).toEqual({ keep: "1" });
    expect(needsWrite(app, next)).toBe(true);
  });

  it("skips a write that would only move reconciledAt", () => {
    const first = nextApplication(base(), update());
    const again = nextApplication(first, update({ nowMs: Date.UTC(2030, 0, 2) }));
    expect(needsWrite(first, again)).toBe(false);
  });

  it.each([
    { name: "records history when a sync completes successfully", operation: null, want: 1 },
    { name: "records nothing while the operation is still set", operation: undefined, want: 0 },
  ])("$name", ({ operation, want }) => {
    const next = nextApplication(base(), update({ state: succeeded, operation }));
    expect(next.status?.history ?? []).toHaveLength(want);
    expect(next.status?.operationState?.phase).toBe("Succeeded");
  });

  it("writes reconciledAt again once it is as old as the heartbeat", () => {
    const app = base({}, { reconciledAt: "2029-12-31T23:58:00Z" });
    const next = nextApplication(app, update());
    const same = { ...next, status: { ...next.status, reconciledAt: "2029-12-31T23:58:00Z" } };
    expect(needsWrite(same, next, 180_000)).toBe(false);
    expect(needsWrite(same, next, 120_000)).toBe(true);
  });

  it("keeps the health transition time while the health holds", () => {
    const app = base({}, { health: { status: "Healthy", lastTransitionTime: "2020-01-01T00:00:00Z" } });
    expect(nextApplication(app, update()).status?.health?.lastTransitionTime).toBe("2020-01-01T00:00:00Z");
    const degraded = update({ comparison: { sync: "Synced", health: { status: "Degraded" }, resources: [], modified: new Map() } });
    expect(nextApplication(app, degraded).status?.health?.lastTransitionTime).toBe("2030-01-01T00:00:00Z");
  });
});

describe("the operation a reconcile acts on", () => {
  const running: OperationState = { operation: { sync: {} }, phase: "Running", startedAt: "2030-01-01T00:00:00Z" };
  it.each([
    { name: "a requested operation starts Running", app: { ...base(), operation: { sync: {} } }, want: "Running" },
    { name: "a completed one with no new request is not acted on", app: base({}, { operationState: succeeded }), want: undefined },
    {
      name: "a running one of a deleted Application is terminated",
      app: base({ deletionTimestamp: "2030-01-01T00:00:00Z" }, { operationState: running }),
      want: "Terminating",
    },
    {
      name: "a Terminating one stays Terminating",
      app: base({}, { operationState: { ...running, phase: "Terminating" } }),
      want: "Terminating",
    },
  ])("$name", ({ app, want }) => {
    expect(currentOperation(app, 0)?.phase).toBe(want);
  });
});

describe("the status of an Application whose manifests cannot be read", () => {
  it("sets ComparisonError, sync Unknown at the revision asked for, and Healthy when no health is known", () => {
    const app = base();
    app.spec.source = { repoURL: "r", targetRevision: "HEAD" };
    const status = comparisonErrorStatus(app, "app: app path does not exist", Date.UTC(2030, 0, 1));
    expect(status.conditions).toEqual([
      { type: "ComparisonError", message: "app: app path does not exist", lastTransitionTime: "2030-01-01T00:00:00Z" },
    ]);
    expect(status.sync).toEqual({ status: "Unknown", revision: "HEAD" });
    expect(status.health).toEqual({ status: "Healthy", lastTransitionTime: "2030-01-01T00:00:00Z" });
  });

  it("keeps a known health and replaces an earlier ComparisonError", () => {
    const app = base({}, { health: { status: "Degraded" }, conditions: [{ type: "ComparisonError", message: "old" }] });
    const status = comparisonErrorStatus(app, "new", 0);
    expect(status.health).toEqual({ status: "Degraded" });
    expect(status.conditions?.map((c) => c.message)).toEqual(["new"]);
  });

  it("records the failed comparison in reconciledAt, and leaves it while the same failure repeats", () => {
    const first = comparisonErrorStatus(base(), "boom", Date.UTC(2030, 0, 1));
    expect(first.reconciledAt).toBe("2030-01-01T00:00:00Z");
    const again = comparisonErrorStatus(base({}, first), "boom", Date.UTC(2030, 0, 2));
    expect(again.reconciledAt).toBe("2030-01-01T00:00:00Z");
    const other = comparisonErrorStatus(base({}, first), "other", Date.UTC(2030, 0, 3));
    expect(other.reconciledAt).toBe("2030-01-03T00:00:00Z");
  });
});
