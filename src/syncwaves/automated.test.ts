import { describe, expect, it } from "vitest";
import type { Application, OperationState, ResourceStatus, SyncPolicy } from "../api/index.js";
import { autoSync, DEFAULT_SELF_HEAL_BACKOFF, selfHealRemainingMs, type AutoSyncInput } from "./automated.js";

const SOURCE = { repoURL: "https://git.example/r.git", path: "app", targetRevision: "HEAD" };
const NOW = Date.parse("2030-01-01T00:10:00Z");

const last = (phase: OperationState["phase"], revision: string, extra: Partial<OperationState> = {}): OperationState => ({
  operation: { sync: {} },
  phase,
  message: phase === "Failed" ? "one or more objects failed to apply" : "successfully synced (all tasks run)",
  startedAt: "2030-01-01T00:00:00Z",
  finishedAt: "2030-01-01T00:00:01Z",
  syncResult: { revision, source: SOURCE },
  ...extra,
});

const app = (syncPolicy: SyncPolicy | undefined, operationState?: OperationState, source = SOURCE): Application => ({
  apiVersion: "argoproj.io/v1alpha1",
  kind: "Application",
  metadata: { name: "a" },
  spec: { project: "default", source, destination: {}, ...(syncPolicy ? { syncPolicy } : {}) },
  ...(operationState ? { status: { operationState } } : {}),
});

const modified: ResourceStatus = { group: "apps", version: "v1", kind: "Deployment", namespace: "ns", name: "web", status: "OutOfSync" };
const synced: ResourceStatus = { version: "v1", kind: "Service", namespace: "ns", name: "web", status: "Synced" };
const extra: ResourceStatus = {
  version: "v1",
  kind: "ConfigMap",
  namespace: "ns",
  name: "old",
  status: "OutOfSync",
  requiresPruning: true,
};

const input = (
  a: Application,
  resources: ResourceStatus[] = [modified, synced],
  sync: AutoSyncInput["sync"] = "OutOfSync",
): AutoSyncInput => ({
  app: a,
  sync,
  resources,
  revision: "rev",
  nowMs: NOW,
});

describe("automated sync", () => {
  it.each([
    { name: "starts when automated and OutOfSync", policy: { automated: {} }, state: undefined, want: "start" },
    { name: "does nothing without automated", policy: undefined, state: undefined, want: "none" },
    { name: "does nothing when automated.enabled is false", policy: { automated: { enabled: false } }, state: undefined, want: "none" },
    { name: "starts for a new revision after a success", policy: { automated: {} }, state: last("Succeeded", "old"), want: "start" },
    {
      name: "reports a revision that failed instead of retrying it",
      policy: { automated: { selfHeal: true } },
      state: last("Failed", "rev"),
      want: "error",
    },
    {
      name: "without selfHeal leaves drift of the deployed revision alone",
      policy: { automated: {} },
      state: last("Succeeded", "rev"),
      want: "none",
    },
    {
      name: "with selfHeal repairs drift of the deployed revision (first attempt at once)",
      policy: { automated: { selfHeal: true } },
      state: last("Succeeded", "rev"),
      want: "start",
    },
    {
      name: "a completed operation without a result counts as attempted",
      policy: { automated: {} },
      state: { ...last("Error", "rev"), syncResult: undefined },
      want: "error",
    },
  ] as const)("$name", ({ policy, state, want }) => {
    expect(autoSync(input(app(policy as SyncPolicy | undefined, state))).kind).toBe(want);
  });

  it.each([
    { name: "Synced", sync: "Synced" },
    { name: "Unknown", sync: "Unknown" },
  ] as const)("does nothing when the Application is $name", ({ sync }) => {
    expect(autoSync(input(app({ automated: {} }), [modified], sync)).kind).toBe("none");
  });

  it("does nothing while an operation is requested or the Application is being deleted", () => {
    const requested = { ...app({ automated: {} }), operation: { sync: {} } };
    const deleting = app({ automated: {} });
    deleting.metadata.deletionTimestamp = "2030-01-01T00:00:00Z";
    expect(autoSync(input(requested)).kind).toBe("none");
    expect(autoSync(input(deleting)).kind).toBe("none");
  });

  it("carries the source, prune, the sync options, the default retry of five and the automated initiator", () => {
    const d = autoSync(input(app({ automated: { prune: true }, syncOptions: ["PruneLast=true"] })));
    expect(d).toEqual({
      kind: "start",
      operation: {
        sync: { source: SOURCE, revision: "rev", prune: true, syncOptions: ["PruneLast=true"] },
        initiatedBy: { automated: true },
        retry: { limit: 5 },
      },
    });
  });

  it("names the failed revision and the last message in the SyncError, as Go prints a list", () => {
    expect(autoSync(input(app({ automated: {} }, last("Failed", "rev"))))).toEqual({
      kind: "error",
      message: "Failed last sync attempt to [rev]: one or more objects failed to apply",
    });
  });

  it("syncs again at the same revision when the source changed since", () => {
    const changed = { ...SOURCE, path: "other" };
    expect(autoSync(input(app({ automated: {} }, last("Succeeded", "rev"), changed))).kind).toBe("start");
    expect(autoSync(input(app({ automated: {} }, last("Failed", "rev"), changed))).kind).toBe("start");
  });

  describe("prune off", () => {
    it("skips when only resources that need pruning are OutOfSync (a file deleted from Git)", () => {
      for (const selfHeal of [false, true]) {
        const a = app({ automated: { selfHeal } }, last("Succeeded", "rev"));
        expect(autoSync(input(a, [synced, extra])).kind).toBe("none");
        expect(autoSync({ ...input(a, [synced, extra]), revision: "new" }).kind).toBe("none");
      }
    });

    it("still syncs when something besides the prunes is OutOfSync", () => {
      expect(autoSync(input(app({ automated: {} }), [synced, extra, modified])).kind).toBe("start");
    });
  });

  describe("self-heal", () => {
    it("is a selective sync of the resources that are not Synced, by group, kind and name, and counts the attempt", () => {
      const a = app({ automated: { selfHeal: true, prune: true } }, last("Succeeded", "rev"));
      const d = autoSync(input(a, [modified, synced, extra]));
      expect(d.kind).toBe("start");
      if (d.kind !== "start") return;
      expect(d.operation.sync?.resources).toEqual([
        { group: "apps", kind: "Deployment", name: "web" },
        { kind: "ConfigMap", name: "old" },
      ]);
      expect(d.operation.sync?.autoHealAttemptsCount).toBe(1);
    });

    it.each([
      { attempts: 1, sinceMs: 0, want: 2_000 },
      { attempts: 1, sinceMs: 1_500, want: 500 },
      { attempts: 2, sinceMs: 0, want: 6_000 },
      { attempts: 3, sinceMs: 0, want: 18_000 },
      { attempts: 5, sinceMs: 0, want: 162_000 },
      { attempts: 6, sinceMs: 0, want: 300_000 },
      { attempts: 40, sinceMs: 0, want: 300_000 },
    ])(
      "waits 2 s × 3^(n−1), at most 300 s, from the last finish: $attempts attempts, $sinceMs ms since → $want ms",
      ({ attempts, sinceMs, want }) => {
        const finishedAt = new Date(NOW - sinceMs).toISOString();
        const state = last("Succeeded", "rev", { finishedAt, operation: { sync: { autoHealAttemptsCount: attempts } } });
        const a = app({ automated: { selfHeal: true } }, state);
        expect(selfHealRemainingMs(a, attempts, NOW, DEFAULT_SELF_HEAL_BACKOFF)).toBe(want);
        expect(autoSync(input(a))).toEqual({ kind: "wait", afterMs: want });
      },
    );

    it("with a fixed timeout waits it before every attempt, the first too", () => {
      const fixed = { initialMs: 5_000, factor: 1, capMs: 5_000, fixed: true };
      const a = app({ automated: { selfHeal: true } }, last("Succeeded", "rev", { finishedAt: new Date(NOW - 1_000).toISOString() }));
      expect(autoSync({ ...input(a), selfHealBackoff: fixed })).toEqual({ kind: "wait", afterMs: 4_000 });
    });

    it("starts the next attempt once the back-off has passed, counting on", () => {
      const state = last("Succeeded", "rev", {
        finishedAt: new Date(NOW - 6_001).toISOString(),
        operation: { sync: { autoHealAttemptsCount: 2 } },
      });
      const d = autoSync(input(app({ automated: { selfHeal: true } }, state)));
      expect(d.kind === "start" ? d.operation.sync?.autoHealAttemptsCount : undefined).toBe(3);
    });

    it("a new revision is a full sync and starts counting afresh", () => {
      const state = last("Succeeded", "old", { operation: { sync: { autoHealAttemptsCount: 4 } } });
      const d = autoSync(input(app({ automated: { selfHeal: true } }, state)));
      expect(d.kind).toBe("start");
      if (d.kind !== "start") return;
      expect(d.operation.sync?.resources).toBeUndefined();
      expect(d.operation.sync?.autoHealAttemptsCount).toBeUndefined();
    });
  });

  describe("allowEmpty", () => {
    it("refuses a sync that would prune every resource, naming the revision", () => {
      expect(autoSync(input(app({ automated: { prune: true } }), [extra]))).toEqual({
        kind: "error",
        message: "Skipping sync attempt to [rev]: auto-sync will wipe out all resources",
      });
      expect(autoSync(input(app({ automated: { prune: true } }), [])).kind).toBe("error");
    });

    it("allows it with allowEmpty, and any sync that keeps something", () => {
      expect(autoSync(input(app({ automated: { prune: true, allowEmpty: true } }), [extra])).kind).toBe("start");
      expect(autoSync(input(app({ automated: { prune: true } }), [extra, modified])).kind).toBe("start");
    });
  });
});
