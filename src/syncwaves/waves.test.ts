import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { label, obj, task, wave } from "../../test/unit/syncwaves/builders.js";
import { applyPruneLast, kindRuns, mirrorPruneWaves, objectWave, selectBatch, taskWave } from "./waves.js";

describe("objectWave", () => {
  it.each([
    { name: "reads the sync-wave annotation", ann: { "argocd.argoproj.io/sync-wave": "5" }, wave: 5 },
    { name: "accepts negative waves", ann: { "argocd.argoproj.io/sync-wave": "-3" }, wave: -3 },
    { name: "accepts an explicit plus sign", ann: { "argocd.argoproj.io/sync-wave": "+2" }, wave: 2 },
    { name: "falls back to the Helm hook weight", ann: { "helm.sh/hook-weight": "7" }, wave: 7 },
    {
      name: "falls back to the Helm hook weight when the wave is not an integer",
      ann: { "argocd.argoproj.io/sync-wave": "1.5", "helm.sh/hook-weight": "-1" },
      wave: -1,
    },
    {
      name: "prefers the sync wave over the Helm weight",
      ann: { "argocd.argoproj.io/sync-wave": "2", "helm.sh/hook-weight": "9" },
      wave: 2,
    },
    { name: "rejects spaces like Go's Atoi", ann: { "argocd.argoproj.io/sync-wave": " 4" }, wave: 0 },
    { name: "defaults to 0", ann: {}, wave: 0 },
  ])("$name", ({ ann, wave: w }) => {
    expect(objectWave(obj("ConfigMap", "c", { annotations: ann as Record<string, string> }))).toBe(w);
  });
});

describe("mirrorPruneWaves", () => {
  it("swaps the i-th lowest and i-th highest prune waves and leaves other tasks alone", () => {
    const tasks = [1, 3, 4, 5].map((w) => task(obj("ConfigMap", `p${String(w)}`, { annotations: wave(w) }), { prune: true }));
    const keep = task(obj("ConfigMap", "keep", { annotations: wave(3) }));
    const out = mirrorPruneWaves([...tasks, keep]);
    expect(out.map(taskWave)).toEqual([5, 4, 3, 1, 3]);
  });

  it("reverses the order of prune waves and is its own inverse", () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: -5, max: 5 }), { minLength: 1, maxLength: 10 }), (waves) => {
        const tasks = waves.map((w, i) => task(obj("ConfigMap", `p${String(i)}`, { annotations: wave(w) }), { prune: true }));
        const once = mirrorPruneWaves(tasks);
        for (let i = 0; i < waves.length; i++) {
          for (let j = 0; j < waves.length; j++) {
            if (waves[i]! < waves[j]!) expect(taskWave(once[i]!)).toBeGreaterThan(taskWave(once[j]!));
          }
        }
        expect(mirrorPruneWaves(once).map(taskWave)).toEqual(waves);
      }),
    );
  });
});

describe("applyPruneLast", () => {
  it("moves PruneLast prunes to one past the highest Sync wave", () => {
    const tasks = [
      task(obj("ConfigMap", "a", { annotations: wave(4) })),
      task(obj("ConfigMap", "p", { annotations: wave(1) }), { prune: true }),
      task(obj("ConfigMap", "q", { annotations: wave(9) }), { prune: true, phase: "PostSync" }),
    ];
    const out = applyPruneLast(tasks, (t) => t.target === undefined);
    expect(out.map(taskWave)).toEqual([4, 5, 5]);
  });

  it("uses wave 1 when every Sync wave is negative", () => {
    const out = applyPruneLast([task(obj("ConfigMap", "p", { annotations: wave(-3) }), { prune: true })], () => true);
    expect(taskWave(out[0]!)).toBe(1);
  });
});

describe("selectBatch", () => {
  it.each([
    {
      name: "takes every task of the first phase and wave",
      tasks: [task(obj("ConfigMap", "a")), task(obj("Deployment", "b")), task(obj("Service", "c", { annotations: wave(1) }))],
      batch: ["ConfigMap/a", "Deployment/b"],
      finalWave: false,
    },
    {
      name: "marks the final wave when the last pending task is in it",
      tasks: [task(obj("ConfigMap", "a", { annotations: wave(2) })), task(obj("Deployment", "b", { annotations: wave(2) }))],
      batch: ["ConfigMap/a", "Deployment/b"],
      finalWave: true,
    },
    {
      name: "separates phases with the same wave",
      tasks: [task(obj("Job", "pre"), { phase: "PreSync", hook: true }), task(obj("ConfigMap", "a"))],
      batch: ["Job/pre"],
      finalWave: false,
    },
  ])("$name", ({ tasks, batch, finalWave }) => {
    const b = selectBatch(tasks);
    expect(b?.tasks.map(label)).toEqual(batch);
    expect(b?.finalWave).toBe(finalWave);
  });

  it("returns nothing when no task is pending", () => {
    expect(selectBatch([])).toBeUndefined();
  });
});

describe("kindRuns", () => {
  it("groups consecutive tasks of one kind and keeps the order of the runs", () => {
    const runs = kindRuns([
      task(obj("ConfigMap", "a")),
      task(obj("ConfigMap", "b")),
      task(obj("Deployment", "c")),
      task(obj("ConfigMap", "d")),
    ]);
    expect(runs.map((r) => r.map(label))).toEqual([["ConfigMap/a", "ConfigMap/b"], ["Deployment/c"], ["ConfigMap/d"]]);
  });
});
