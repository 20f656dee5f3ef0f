// Drives planRollout over many passes against a fake application controller for the seed's guestbook
// example (dev; qa with maxUpdate 0, synced by hand; prod with 10% of 12 Applications), pushes a
// new commit mid-rollout, and checks the rollout invariants after every pass.
import { describe, expect, it } from "vitest";
import type { ApplicationSetApplicationStatus } from "../../../src/api/index.js";
import { maxUpdateLimit, parseMaxUpdate, statusRank, stepIndexOf } from "../../../src/progressivesync/index.js";
import { desired, envStep, rollingAppSet, spec, T0 } from "./builders.js";
import { World } from "./world.js";

const steps = [envStep(["env-dev"]), envStep(["env-qa"], 0), envStep(["env-prod"], "10%")];
const template = spec({ syncPolicy: { automated: { prune: true, selfHeal: true } } });
const names = [
  ["dev-guestbook", "env-dev"],
  ["qa-1-guestbook", "env-qa"],
  ["qa-2-guestbook", "env-qa"],
  ...Array.from({ length: 12 }, (_, i) => [`prod-${String(i + 1).padStart(2, "0")}-guestbook`, "env-prod"]),
  ["staging-guestbook", "env-staging"],
] as const;
const apps = names
  .map(([n, env]) => desired(n, { envLabel: env, env }, template))
  .sort((a, b) => (a.metadata.name < b.metadata.name ? -1 : 1));
const stepOf = (name: string): number | undefined => {
  const env = names.find(([n]) => n === name)![1];
  const i = steps.findIndex((s) => s.matchExpressions![0]!.values!.includes(env));
  return i < 0 ? undefined : i;
};
const inSteps = apps.map((a) => a.metadata.name).filter((n) => stepOf(n) !== undefined);
const PENDING_CHANGES = /pending changes/;

type Entries = readonly ApplicationSetApplicationStatus[];

/** A pass never promotes past a step's maxUpdate. */
function checkBudget(after: Entries, promoted: readonly string[]): void {
  steps.forEach((s, i) => {
    const inStep = after.filter((e) => stepIndexOf(e.step) === i);
    const updating = inStep.filter((e) => e.status === "Pending" || e.status === "Progressing").length;
    const promotedHere = promoted.filter((n) => stepOf(n) === i).length;
    if (promotedHere > 0) expect(updating).toBeLessThanOrEqual(maxUpdateLimit(parseMaxUpdate(s.maxUpdate), inStep.length));
  });
}

/** Statuses only move forward, except when an entry is reset by a revision or spec change. */
function checkForward(before: Entries, after: Entries, resets: ReadonlySet<string>): void {
  const prev = new Map(before.map((e) => [e.application, e.status]));
  for (const e of after) {
    const was = prev.get(e.application);
    if (was !== undefined && statusRank(e.status) < statusRank(was))
      expect(resets.has(e.application), `${e.application}: ${was} -> ${e.status}`).toBe(true);
  }
}

describe("RollingSync simulation: the seed's guestbook example", () => {
  it("rolls r2 then r3 out step by step, never over budget, never ahead of earlier steps, and a mid-rollout commit does not hijack the step in progress", () => {
    const world = new World(
      rollingAppSet(steps),
      apps,
      { now: T0, head: "r1", deployed: "r1" },
      { slow: new Set(["dev-guestbook", "qa-1-guestbook", "qa-2-guestbook", "prod-05-guestbook"]), slowEvery: 12 },
    );
    let checkedWrites = 0;
    let hijackCandidate: string | undefined;

    const pass = (): void => {
      world.controllerTick();
      const dev = world.statuses().get("dev-guestbook");
      for (const qa of ["qa-1-guestbook", "qa-2-guestbook"]) {
        const entry = world.statuses().get(qa);
        const devValidated = world.validated.get("dev-guestbook")?.has(world.head) === true;
        if (
          dev === "Healthy" &&
          devValidated &&
          entry === "Waiting" &&
          world.deployed.get(qa) !== world.head &&
          world.apps.get(qa)!.operation === undefined
        )
          world.manualSync(qa);
      }
      const before = world.appSet.status?.applicationStatus ?? [];
      const d = world.pass();
      const after = d.applicationStatus ?? [];
      checkBudget(
        after,
        d.moves.filter((m) => m.to === "Pending").map((m) => m.application),
      );
      checkForward(before, after, new Set(d.moves.filter((m) => m.reset !== undefined).map((m) => m.application)));
      expect(d.moves.filter((m) => m.reset === undefined && PENDING_CHANGES.test(m.message))).toEqual([]);
      for (const w of world.written.slice(checkedWrites)) {
        expect(w.revision, `${w.app} sync is pinned`).toBeDefined();
        const k = stepOf(w.app)!;
        const earlier = inSteps.filter((n) => stepOf(n)! < k);
        for (const n of earlier)
          expect(world.validated.get(n)?.has(w.revision!), `${w.app}@${w.revision!} before ${n} validated it`).toBe(true);
      }
      checkedWrites = world.written.length;
      world.advance();
    };
    const converged = (rev: string): boolean =>
      inSteps.every((n) => world.deployed.get(n) === rev && world.statuses().get(n) === "Healthy") &&
      world.decisions.at(-1)!.conditions.some((c) => c.type === "RolloutProgressing" && c.status === "False");
    const runUntil = (done: () => boolean, max = 400): void => {
      for (let i = 0; i < max && !done(); i++) pass();
      expect(done()).toBe(true);
    };

    runUntil(() => converged("r1"), 5);
    world.head = "r2";
    runUntil(() => {
      const prodExecuted = world.executed.filter(
        (e) => e.by === "applicationset-controller" && e.revision === "r2" && stepOf(e.app) === 2,
      ).length;
      const last = world.written.at(-1);
      const fresh = last !== undefined && stepOf(last.app) === 2 && last.at === world.now - 10_000;
      if (prodExecuted >= 2 && fresh) hijackCandidate = last.app;
      return hijackCandidate !== undefined;
    });
    world.head = "r3";
    const pushedR3At = world.now;
    runUntil(() => converged("r3"), 600);

    const pinned = world.executed.find((e) => e.app === hijackCandidate && e.at >= pushedR3At && e.by === "applicationset-controller");
    expect(pinned?.revision, "the sync written before r3 landed still deploys r2").toBe("r2");
    expect(world.written.filter((w) => w.app === "staging-guestbook" || w.app.startsWith("qa-"))).toEqual([]);
    const prodWrites = world.written.filter((w) => stepOf(w.app) === 2);
    expect(
      Math.max(...prodWrites.map((w) => prodWrites.filter((x) => x.at === w.at).length)),
      "10% of 12 prod Applications: one sync at a time",
    ).toBe(1);
    expect(
      world.decisions.some((d) => d.refresh.length > 0),
      "the gate had to force a refresh of a slow Application",
    ).toBe(true);
    expect(world.decisions[0]!.autosyncWarnings).toHaveLength(apps.length);
  });
});
