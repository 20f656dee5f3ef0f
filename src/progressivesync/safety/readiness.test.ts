import { describe, expect, it } from "vitest";
import { HealthStatus, OperationPhase, SyncStatus } from "../../api/index.js";
import { standingOf, standStep, whyLine } from "./readiness.js";
import { observe, PREVIOUS, START, TARGET, type Look } from "./scenario.js";

describe("the standing of one Application", () => {
  it.each([
    // name; how the Application looks; its expected standing
    { name: "Synced and Healthy on the target is ready", look: "ready", standing: "ready" },
    { name: "OutOfSync on the previous revision is pending", look: "outOfSync", standing: "pending" },
    { name: "Progressing is pending", look: "progressing", standing: "pending" },
    { name: "Degraded is failed", look: "degraded", standing: "failed" },
    { name: "a failed sync is failed even when Healthy", look: "syncFailedHealthy", standing: "failed" },
    { name: "Synced and Healthy on another revision is pending", look: "old", standing: "pending" },
    { name: "a missing Application is pending", look: "missing", standing: "pending" },
  ] satisfies { name: string; look: Look; standing: string }[])("$name", ({ look, standing }) => {
    expect(standingOf(observe("a", look), [TARGET])).toBe(standing);
  });

  it("counts an Errored sync as failed, and a Synced Healthy one after a failed operation too", () => {
    const base = { name: "a", revisions: [TARGET], reconciledAt: START, syncStatus: SyncStatus.Synced, healthStatus: HealthStatus.Healthy };
    expect(standingOf({ ...base, operationPhase: OperationPhase.Error }, [TARGET])).toBe("failed");
    expect(standingOf({ ...base, operationPhase: OperationPhase.Failed }, [TARGET])).toBe("failed");
    expect(standingOf({ ...base, operationPhase: undefined }, [TARGET])).toBe("ready");
  });

  it.each([
    // name; the Application; when its step started (seconds after START); the expected standing
    { name: "a sync that failed before the step started is an earlier rollout's: pending", opAt: 0, stepAt: 60, standing: "pending" },
    { name: "a sync that failed in the second the step started counts", opAt: 60.5, stepAt: 60, standing: "failed" },
    { name: "a sync that failed after the step started counts", opAt: 90, stepAt: 60, standing: "failed" },
  ])("$name", ({ opAt, stepAt, standing }) => {
    const o = {
      name: "a",
      revisions: [TARGET],
      reconciledAt: START,
      syncStatus: SyncStatus.OutOfSync,
      healthStatus: HealthStatus.Healthy,
      operationPhase: OperationPhase.Failed,
      operationStartedAt: START + opAt * 1000,
    };
    expect(standingOf(o, [TARGET], START + stepAt * 1000)).toBe(standing);
  });

  it("counts Degraded as failed only once Synced: Degraded and OutOfSync has not been synced to the rollout yet", () => {
    const base = { name: "a", revisions: [TARGET], reconciledAt: START, operationPhase: undefined, healthStatus: HealthStatus.Degraded };
    expect(standingOf({ ...base, syncStatus: SyncStatus.OutOfSync }, [TARGET])).toBe("pending");
    expect(standingOf({ ...base, syncStatus: SyncStatus.Synced }, [TARGET])).toBe("failed");
  });
});

describe("why an Application is not ready", () => {
  it.each([
    // name; how it looks; seconds since it was reconciled; the expected line
    {
      name: "out of sync on the old revision",
      look: "outOfSync",
      ago: 12,
      line: `prod-eu: OutOfSync at 3f2a1c9, wants 9b8c7d6, last reconciled 12 s ago`,
    },
    { name: "progressing on the target", look: "progressing", ago: 0, line: "prod-eu: Progressing at 9b8c7d6, last reconciled 0 s ago" },
    {
      name: "sync failed but healthy",
      look: "syncFailedHealthy",
      ago: 3,
      line: "prod-eu: OutOfSync, sync Failed at 9b8c7d6, last reconciled 3 s ago",
    },
    { name: "degraded", look: "degraded", ago: 61, line: "prod-eu: Degraded at 9b8c7d6, last reconciled 61 s ago" },
    {
      name: "healthy on the old revision",
      look: "old",
      ago: 1,
      line: "prod-eu: not yet at 3f2a1c9, wants 9b8c7d6, last reconciled 1 s ago",
    },
    { name: "missing", look: "missing", ago: 0, line: "prod-eu: not found" },
  ] satisfies { name: string; look: Look; ago: number; line: string }[])("$name", ({ look, ago, line }) => {
    const now = START + ago * 1000;
    expect(whyLine("prod-eu", observe("prod-eu", look, START), [TARGET], now)).toBe(line);
  });

  it("names the Applications of a step that are not ready, and counts each standing", () => {
    const observed = new Map(["a", "b", "c"].map((n, i) => [n, observe(n, (["ready", "degraded", "outOfSync"] as const)[i] ?? "ready")!]));
    const s = standStep(["a", "b", "c", "d"], observed, { targets: { a: [TARGET], b: [TARGET], c: [TARGET], d: [TARGET] }, now: START });
    expect(s.counts).toEqual({ total: 4, ready: 1, failed: 1, pending: 2 });
    expect(s.failed).toEqual(["b"]);
    expect(s.notReady.map((n) => n.name)).toEqual(["b", "c", "d"]);
    expect(PREVIOUS.startsWith("3f2a1c9")).toBe(true);
  });
});
