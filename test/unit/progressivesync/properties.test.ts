// fast-check properties of one planRollout pass over arbitrary Applications, statuses and steps.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { ApplicationSetApplicationStatus, IntOrString } from "../../../src/api/index.js";
import { maxUpdateLimit, parseMaxUpdate, planRollout, statusRank, stepIndexOf } from "../../../src/progressivesync/index.js";
import { at, desired, envStep, live, rollingAppSet, ts } from "./builders.js";

const STATUSES = ["Waiting", "Pending", "Progressing", "Healthy"];

const appArb = fc.record({
  env: fc.constantFrom("s0", "s1", "s2", "none"),
  sync: fc.constantFrom("Synced", "OutOfSync"),
  health: fc.constantFrom("Healthy", "Progressing", "Degraded"),
  revision: fc.constantFrom("r1", "r2"),
  reconciledAt: fc.option(fc.integer({ min: 0, max: 100 }), { nil: null }),
  op: fc.option(fc.record({ phase: fc.constantFrom("Running", "Succeeded", "Failed"), startedAt: fc.integer({ min: 0, max: 100 }) }), {
    nil: undefined,
  }),
  entry: fc.option(
    fc.record({ status: fc.constantFrom(...STATUSES), revision: fc.constantFrom("r1", "r2"), ltt: fc.integer({ min: 0, max: 100 }) }),
    { nil: undefined },
  ),
  exists: fc.boolean(),
});

const worldArb = fc.record({
  maxUpdates: fc.array(fc.constantFrom<IntOrString | undefined>(undefined, 0, 1, 2, "0%", "10%", "50%", "abc"), {
    minLength: 1,
    maxLength: 3,
  }),
  apps: fc.array(appArb, { minLength: 1, maxLength: 15 }),
});

type WorldCase = typeof worldArb extends fc.Arbitrary<infer T> ? T : never;

function plan(w: WorldCase) {
  const steps = w.maxUpdates.map((m, i) => envStep([`s${String(i)}`], m));
  const names = w.apps.map((_, i) => `app-${String(i).padStart(2, "0")}`);
  const status: ApplicationSetApplicationStatus[] = w.apps.flatMap((a, i) =>
    a.entry && a.exists
      ? [
          {
            application: names[i]!,
            status: a.entry.status,
            message: "m",
            step: "1",
            targetRevisions: [a.entry.revision],
            lastTransitionTime: ts(a.entry.ltt),
          },
        ]
      : [],
  );
  const input = {
    appSet: rollingAppSet(steps, { status }),
    desired: w.apps.map((a, i) => desired(names[i]!, { env: a.env })),
    current: w.apps.flatMap((a, i) =>
      a.exists
        ? [
            live(names[i]!, {
              labels: { env: a.env },
              sync: a.sync,
              health: a.health,
              revisions: [a.revision],
              reconciledAt: a.reconciledAt,
              ...(a.op ? { operation: a.op } : {}),
            }),
          ]
        : [],
    ),
    now: at(100),
    config: { progressiveSyncsEnabled: true, refreshGracePeriodMs: 0 },
  };
  return { steps, status, input, decision: planRollout(input) };
}

describe("planRollout properties", () => {
  it("a pass never promotes a step past its maxUpdate", () => {
    fc.assert(
      fc.property(worldArb, (w) => {
        const { steps, decision } = plan(w);
        const after = decision.applicationStatus!;
        const promoted = decision.moves.filter((m) => m.to === "Pending").map((m) => after.find((e) => e.application === m.application)!);
        steps.forEach((s, i) => {
          if (!promoted.some((e) => stepIndexOf(e.step) === i)) return;
          const inStep = after.filter((e) => stepIndexOf(e.step) === i);
          const updating = inStep.filter((e) => e.status === "Pending" || e.status === "Progressing").length;
          expect(updating).toBeLessThanOrEqual(maxUpdateLimit(parseMaxUpdate(s.maxUpdate), inStep.length));
        });
      }),
      { numRuns: 300 },
    );
  });

  it("no Application of step k+1 is promoted or synced before every Application of steps up to k exists and is Healthy", () => {
    fc.assert(
      fc.property(worldArb, (w) => {
        const { decision } = plan(w);
        const after = new Map(decision.applicationStatus!.map((e) => [e.application, e]));
        const stepApps = decision.assignment!.stepApps;
        const started = [
          ...decision.moves.filter((m) => m.to === "Pending").map((m) => m.application),
          ...decision.syncs.map((s) => s.application),
        ];
        for (const name of started) {
          const k = stepApps.findIndex((names) => names.includes(name));
          for (const earlier of stepApps.slice(0, k).flat())
            expect(after.get(earlier)?.status, `${name} started before ${earlier} was Healthy`).toBe("Healthy");
        }
      }),
      { numRuns: 300 },
    );
  });

  it("statuses only move backwards on a revision or spec change, and syncs pin the entry's revisions", () => {
    fc.assert(
      fc.property(worldArb, (w) => {
        const { status, decision } = plan(w);
        const resets = new Set(decision.moves.filter((m) => m.reset !== undefined).map((m) => m.application));
        const before = new Map(status.map((e) => [e.application, e.status]));
        for (const e of decision.applicationStatus!) {
          const was = before.get(e.application);
          if (was !== undefined && statusRank(e.status) < statusRank(was)) expect(resets.has(e.application)).toBe(true);
        }
        for (const s of decision.syncs) {
          const e = decision.applicationStatus!.find((x) => x.application === s.application)!;
          expect(e.status).toBe("Pending");
          expect(s.operation.sync?.revision).toBe(e.targetRevisions![0]);
        }
      }),
      { numRuns: 300 },
    );
  });

  it("is deterministic", () => {
    fc.assert(
      fc.property(worldArb, (w) => {
        expect(plan(w).decision).toEqual(plan(w).decision);
      }),
      { numRuns: 100 },
    );
  });
});
