import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { backoffMs, canRetry, parseBackoffDuration, retryPolicy } from "./retry.js";
import { appendHistory, newOperationState, recordOutcome, restartIfDue } from "./operation.js";

describe("parseBackoffDuration", () => {
  it.each([
    { name: "reads a bare integer as seconds", text: "5", ms: 5000 },
    { name: "reads seconds", text: "5s", ms: 5000 },
    { name: "reads minutes and seconds", text: "1m30s", ms: 90_000 },
    { name: "reads milliseconds", text: "250ms", ms: 250 },
    { name: "reads hours with fractions", text: "1.5h", ms: 5_400_000 },
    { name: "rejects text without a unit", text: "5x", ms: undefined },
    { name: "rejects an empty string", text: "", ms: undefined },
  ])("$name", ({ text, ms }) => {
    expect(parseBackoffDuration(text)).toBe(ms);
  });
});

describe("backoff", () => {
  it("defaults to 5s doubling, capped at 3m", () => {
    const p = retryPolicy({ limit: 5 });
    expect([0, 1, 2, 3, 4, 5, 6].map((n) => backoffMs(p, n) / 1000)).toEqual([5, 10, 20, 40, 80, 160, 180]);
  });

  it("never exceeds the cap and never decreases", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 60 }), fc.integer({ min: 1, max: 4 }), fc.integer({ min: 0, max: 20 }), (d, f, n) => {
        const p = retryPolicy({ limit: 1, backoff: { duration: `${String(d)}s`, factor: f, maxDuration: "10m" } });
        expect(backoffMs(p, n)).toBeLessThanOrEqual(600_000);
        expect(backoffMs(p, n + 1)).toBeGreaterThanOrEqual(backoffMs(p, n));
      }),
    );
  });

  it.each([
    { name: "does not retry with limit 0", limit: 0, count: 0, ok: false },
    { name: "retries below the limit", limit: 2, count: 1, ok: true },
    { name: "stops at the limit", limit: 2, count: 2, ok: false },
    { name: "retries forever with a negative limit", limit: -1, count: 1000, ok: true },
  ])("$name", ({ limit, count, ok }) => {
    expect(canRetry(retryPolicy({ limit }), count)).toBe(ok);
  });
});

describe("operation state", () => {
  const t0 = Date.UTC(2024, 0, 1, 12, 0, 0);
  const op = { sync: { revision: "abc" }, retry: { limit: 2 } };

  it("turns a failure into a waiting retry, then restarts from scratch when due", () => {
    const s0 = newOperationState(op, t0);
    const s1 = recordOutcome(s0, { phase: "Failed", message: "boom", resources: [] }, t0 + 1000);
    expect(s1).toMatchObject({
      phase: "Running",
      retryCount: 1,
      finishedAt: "2024-01-01T12:00:01Z",
      message: "boom. Retrying attempt #1 at 2024-01-01T12:00:11Z.",
    });
    expect(restartIfDue(s1, t0 + 5000)).toBeUndefined();
    const s2 = restartIfDue(s1, t0 + 11_000);
    expect(s2).toMatchObject({ phase: "Running", retryCount: 1, startedAt: s0.startedAt, message: "Retrying operation. Attempt #1" });
    expect(s2?.finishedAt).toBeUndefined();
    expect(s2?.syncResult).toBeUndefined();
  });

  it("reports the retries once they are exhausted", () => {
    const s = { ...newOperationState(op, t0), retryCount: 2 };
    expect(recordOutcome(s, { phase: "Failed", message: "boom" }, t0)).toMatchObject({
      phase: "Failed",
      message: "boom (retried 2 times).",
    });
  });

  it("never retries a success", () => {
    const s = recordOutcome(newOperationState(op, t0), { phase: "Succeeded", message: "ok" }, t0 + 1);
    expect(s).toMatchObject({ phase: "Succeeded", finishedAt: "2024-01-01T12:00:00Z" });
  });

  it("appends history for successful syncs only, keeping the newest entries", () => {
    let history = appendHistory([], { ...newOperationState(op, t0), phase: "Failed" }, { nowMs: t0 });
    expect(history).toEqual([]);
    for (let i = 0; i < 4; i++) {
      history = appendHistory(
        history,
        { ...newOperationState(op, t0), phase: "Succeeded", syncResult: { revision: `r${String(i)}` } },
        { nowMs: t0, limit: 3 },
      );
    }
    expect(history.map((h) => [h.id, h.revision])).toEqual([
      [1, "r1"],
      [2, "r2"],
      [3, "r3"],
    ]);
  });

  it("does not record selective or dry-run syncs in history", () => {
    const selective = { ...newOperationState({ sync: { resources: [{ kind: "ConfigMap", name: "a" }] } }, t0), phase: "Succeeded" };
    const dry = { ...newOperationState({ sync: { dryRun: true } }, t0), phase: "Succeeded" };
    expect(appendHistory([], selective, { nowMs: t0 })).toEqual([]);
    expect(appendHistory([], dry, { nowMs: t0 })).toEqual([]);
  });
});
