import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { RolloutRun } from "../../api/index.js";
import { pendingRequests, runName, runOf, runStatus, targetsHash } from "./resource.js";
import { play, START } from "./scenario.js";
import { RunPhase } from "./types.js";

const policy = { defaults: { progressDeadlineMs: 600_000, maxFailures: 1, soakMs: 60_000 }, rollback: { enabled: true } };

function resource(name: string, status: RolloutRun["status"], requests: NonNullable<RolloutRun["spec"]["requests"]> = []): RolloutRun {
  return {
    metadata: { name, namespace: "argocd", creationTimestamp: "2026-01-01T00:00:00Z" },
    spec: { applicationSet: "guestbook", targetRevisions: [{ application: "a1", revisions: ["9b8c7d6e5f40"] }], requests },
    ...(status ? { status } : {}),
  };
}

describe("a run stored in a RolloutRun", () => {
  it("reads back every state a scenario passes through, at whole seconds", () => {
    const decisions = play({
      policy,
      steps: [
        ["a1", "a2"],
        ["b1", "b2"],
      ],
      passes: [
        { at: 0 },
        { at: 30, apps: { a1: "ready", a2: "ready" } },
        { at: 95, requests: [{ kind: "pause" }] },
        { at: 120, requests: [{ kind: "resume" }] },
        { at: 200 },
        { at: 260, apps: { b1: "degraded", b2: "syncFailedHealthy" } },
      ],
    });
    const phases = decisions.map((d) => d.run.phase);
    expect(phases).toContain(RunPhase.Paused);
    expect(phases.at(-1)).toBe(RunPhase.Halted);
    for (const d of decisions) {
      const stored = resource(d.run.id, runStatus(d.run, { observedRequests: 0, requests: [] }));
      const back = runOf(stored, [], START);
      expect(back).toEqual({ ...d.run, targetRevisions: back.targetRevisions });
    }
  });

  it("is a new run on the given steps while it has no status yet", () => {
    const run = runOf(resource("guestbook-0123456789", undefined), [["a1"], ["b1"]], START + 5_000);
    expect(run.phase).toBe(RunPhase.Running);
    expect(run.steps.map((s) => s.applications)).toEqual([["a1"], ["b1"]]);
    expect(run.startedAt).toBe(START);
    expect(run.currentStep).toBe(0);
  });

  it("keeps the step membership it stored over the steps given now", () => {
    const stored = resource("r", { phase: "Running", currentStep: 1, steps: [{ step: 1, phase: "Progressing", applications: ["x"] }] });
    expect(runOf(stored, [["y", "z"]], START).steps[0]!.applications).toEqual(["x"]);
  });

  it("treats a status with an unknown phase as not written", () => {
    const stored = resource("r", { phase: "Sideways", currentStep: 1 });
    expect(runOf(stored, [["a1"]], START).phase).toBe(RunPhase.Running);
  });
});

describe("the control requests still to apply", () => {
  it("are those after observedRequests, with 1-based steps made 0-based", () => {
    const r = resource("r", { phase: "Running", observedRequests: 1 }, [
      { action: "pause", by: "alice" },
      { action: "approve", step: 3, by: "bob" },
      { action: "resume" },
    ]);
    expect(pendingRequests(r)).toEqual([
      { index: 1, request: { kind: "approve", step: 2 } },
      { index: 2, request: { kind: "resume" } },
    ]);
  });

  it("are every request when none was observed, and none once all were", () => {
    const r = resource("r", undefined, [{ action: "abort" }]);
    expect(pendingRequests(r)).toEqual([{ index: 0, request: { kind: "abort" } }]);
    expect(pendingRequests({ ...r, status: { observedRequests: 1 } })).toEqual([]);
  });
});

describe("the name of a run", () => {
  it("is the same for the same targets in any order, and differs when a revision differs", () => {
    fc.assert(
      fc.property(
        fc.dictionary(
          fc.string({ minLength: 1 }),
          fc.array(fc.string({ minLength: 1, unit: fc.constantFrom(..."0123456789abcdef") }), { minLength: 1 }),
        ),
        (targets) => {
          const reversed = Object.fromEntries(Object.entries(targets).reverse());
          expect(targetsHash(reversed)).toBe(targetsHash(targets));
          const keys = Object.keys(targets);
          if (keys.length > 0) expect(targetsHash({ ...targets, [keys[0]!]: ["changed-revision"] })).not.toBe(targetsHash(targets));
        },
      ),
    );
  });

  it("fits Kubernetes' 253 characters whatever the ApplicationSet's name", () => {
    const name = runName("a".repeat(253), { x: ["1"] });
    expect(name.length).toBe(253);
    expect(name).toMatch(/^a+-[0-9a-f]{10}$/);
    expect(runName("guestbook", { x: ["1"] })).toMatch(/^guestbook-[0-9a-f]{10}$/);
  });
});
