import { describe, expect, it } from "vitest";
import { AGGREGATE_MAX_EVENTS, COMBINED_PREFIX, EventCorrelator, type EventInput } from "./event-correlator.js";

const involved = { apiVersion: "argoproj.io/v1alpha1", kind: "ApplicationSet", namespace: "argocd", name: "set", uid: "u1" };
const ev = (message: string, extra: Partial<EventInput> = {}): EventInput => ({
  involved,
  type: "Normal",
  reason: "created",
  message,
  source: "applicationset-controller",
  ...extra,
});

describe("EventCorrelator (client-go's aggregation and deduplication)", () => {
  it("sends 9 distinct messages as they are, then one combined Event that counts the rest", () => {
    let t = 1_000;
    const c = new EventCorrelator(() => (t += 10));
    const out = Array.from({ length: 12 }, (_, i) => c.correlate(ev(`created Application "a${String(i)}"`)));
    expect(out.slice(0, AGGREGATE_MAX_EVENTS - 1).map((o) => [o.kind, o.message])).toEqual(
      Array.from({ length: 9 }, (_, i) => ["create", `created Application "a${String(i)}"`]),
    );
    expect(out.slice(9).map((o) => [o.kind, o.message, o.count])).toEqual([
      ["create", `${COMBINED_PREFIX}created Application "a9"`, 1],
      ["patch", `${COMBINED_PREFIX}created Application "a10"`, 2],
      ["patch", `${COMBINED_PREFIX}created Application "a11"`, 3],
    ]);
    expect(new Set(out.slice(9).map((o) => o.name)).size).toBe(1);
  });

  it("counts an identical event on the earlier Event, and keeps other reasons and objects apart", () => {
    const c = new EventCorrelator(() => 5_000);
    const first = c.correlate(ev("m"));
    expect(c.correlate(ev("m"))).toEqual({ kind: "patch", name: first.name, message: "m", count: 2, firstTimestampMs: 5_000 });
    expect(c.correlate(ev("m", { reason: "updated" })).kind).toBe("create");
    expect(c.correlate(ev("m", { involved: { ...involved, name: "other", uid: "u2" } })).kind).toBe("create");
  });

  it("starts a new aggregation window after 10 minutes", () => {
    let t = 0;
    const c = new EventCorrelator(() => t);
    for (let i = 0; i < 9; i++) c.correlate(ev(`m${String(i)}`));
    t = 600_001;
    expect(c.correlate(ev("m9"))).toMatchObject({ kind: "create", message: "m9" });
  });
});
