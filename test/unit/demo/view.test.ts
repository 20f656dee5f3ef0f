import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Application, ApplicationSet } from "../../../src/api/index.js";
import { changeLines, plain, renderFrame, renderSummary } from "../../demo/render.js";
import { parseFlags } from "../../demo/flags.js";
import { plainReporter, Stopwatch } from "../../demo/reporter.js";
import { nextView, progressBar, rolloutComplete, stepAwaitingManualSync, type Observation } from "../../demo/view.js";

const step = (env: string, maxUpdate?: number | string) => ({
  matchExpressions: [{ key: "envLabel", operator: "In", values: [`env-${env}`] }],
  ...(maxUpdate === undefined ? {} : { maxUpdate }),
});

function appSet(statuses: Array<[string, string, string]>): ApplicationSet {
  return {
    apiVersion: "argoproj.io/v1alpha1",
    kind: "ApplicationSet",
    metadata: { name: "guestbook", namespace: "argocd" },
    spec: {
      generators: [],
      template: { metadata: {}, spec: { project: "default", destination: {} } },
      strategy: { type: "RollingSync", rollingSync: { steps: [step("dev"), step("qa", 0), step("prod", "10%")] } },
    },
    status: {
      applicationStatus: statuses.map(([application, stepNo, status]) => ({ application, step: stepNo, status, message: "" })),
      conditions: [
        {
          type: "RolloutProgressing",
          status: "True",
          reason: "ApplicationSetModified",
          message: "ApplicationSet is performing rollout of step 1",
        },
      ],
    },
  };
}

function app(name: string, env: string, extra: { deleting?: boolean; sync?: string; health?: string } = {}): Application {
  return {
    apiVersion: "argoproj.io/v1alpha1",
    kind: "Application",
    metadata: {
      name,
      namespace: "argocd",
      labels: { envLabel: `env-${env}` },
      ...(extra.deleting ? { deletionTimestamp: "2026-01-01T00:00:00Z" } : {}),
    },
    spec: { project: "default", destination: {} },
    status: { sync: { status: extra.sync ?? "OutOfSync" }, health: { status: extra.health ?? "Missing" } },
  };
}

const APPS = [app("dev", "dev"), app("qa", "qa"), app("prod-eu", "prod"), app("prod-us", "prod")];
const view = nextView(
  undefined,
  {
    appSet: appSet([
      ["dev", "1", "Healthy"],
      ["qa", "2", "Waiting"],
      ["prod-eu", "3", "Waiting"],
      ["prod-us", "3", "Waiting"],
    ]),
    apps: APPS,
  },
  "guestbook",
);

describe("nextView", () => {
  it.each([
    {
      name: "places each Application in the step applicationStatus records, with its status",
      obs: {
        appSet: appSet([
          ["dev", "1", "Pending"],
          ["qa", "2", "Waiting"],
          ["prod-eu", "3", "Waiting"],
          ["prod-us", "3", "Waiting"],
        ]),
        apps: APPS,
      },
      rows: [["dev:Pending"], ["qa:Waiting"], ["prod-eu:Waiting", "prod-us:Waiting"]],
    },
    {
      name: "places Applications not yet in applicationStatus by their labels, as Unknown",
      obs: { appSet: appSet([]), apps: APPS },
      rows: [["dev:Unknown"], ["qa:Unknown"], ["prod-eu:Unknown", "prod-us:Unknown"]],
    },
    {
      name: "shows an Application being deleted as Deleting whatever its rollout status",
      obs: { appSet: appSet([["dev", "1", "Healthy"]]), apps: [app("dev", "dev", { deleting: true })] },
      rows: [["dev:Deleting"], [], []],
    },
  ])("$name", ({ obs, rows }) => {
    const view = nextView(undefined, obs, "guestbook");
    expect(view.steps.map((s) => s.apps.map((a) => `${a.name}:${a.status}`))).toEqual(rows);
  });

  it("keeps an Application that disappeared as Deleted, and keeps the steps once the ApplicationSet is gone", () => {
    const first = nextView(
      undefined,
      {
        appSet: appSet([
          ["dev", "1", "Healthy"],
          ["qa", "2", "Healthy"],
        ]),
        apps: [app("dev", "dev"), app("qa", "qa")],
      },
      "guestbook",
    );
    const second = nextView(first, { appSet: undefined, apps: [app("dev", "dev", { deleting: true })] }, "guestbook");
    expect(second.steps.map((s) => s.apps.map((a) => `${a.name}:${a.status}`))).toEqual([["dev:Deleting"], ["qa:Deleted"], []]);
    expect([second.appSetPresent, second.deleted, second.total]).toEqual([false, 1, 2]);
  });

  it("counts every Application exactly once across the steps and the unassigned rows", () => {
    const envs = fc.constantFrom("dev", "qa", "prod", "other");
    const statuses = fc.constantFrom("Waiting", "Pending", "Progressing", "Healthy", "Bogus");
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.tuple(fc.string({ minLength: 1, maxLength: 8 }), envs, statuses), { selector: (t) => t[0] }),
        (rows) => {
          const obs: Observation = { appSet: appSet(rows.map(([n, , s]) => [n, "", s])), apps: rows.map(([n, e]) => app(n, e)) };
          const view = nextView(undefined, obs, "guestbook");
          const counted =
            view.steps.reduce((sum, s) => sum + Object.values(s.counts).reduce((a, b) => a + b, 0), 0) + view.unassigned.length;
          expect(counted).toBe(rows.length);
          expect(view.total).toBe(rows.length);
        },
      ),
    );
  });
});

describe("rollout predicates", () => {
  it.each([
    {
      name: "the rollout is complete when every Application is Healthy",
      statuses: ["Healthy", "Healthy", "Healthy", "Healthy"],
      complete: true,
      manual: undefined,
    },
    {
      name: "qa waits for a manual sync once dev is Healthy and qa is all Waiting",
      statuses: ["Healthy", "Waiting", "Waiting", "Waiting"],
      complete: false,
      manual: 2,
    },
    {
      name: "qa does not wait for a manual sync while dev is still syncing",
      statuses: ["Progressing", "Waiting", "Waiting", "Waiting"],
      complete: false,
      manual: undefined,
    },
    {
      name: "a step without maxUpdate 0 never waits for a manual sync",
      statuses: ["Healthy", "Healthy", "Pending", "Waiting"],
      complete: false,
      manual: undefined,
    },
  ])("$name", ({ statuses, complete, manual }) => {
    const names = ["dev", "qa", "prod-eu", "prod-us"];
    const steps = ["1", "2", "3", "3"];
    const view = nextView(undefined, { appSet: appSet(names.map((n, i) => [n, steps[i]!, statuses[i]!])), apps: APPS }, "guestbook");
    expect([rolloutComplete(view), stepAwaitingManualSync(view)?.index]).toEqual([complete, manual]);
  });
});

describe("progressBar", () => {
  it.each([
    { name: "an empty bar when nothing is done", done: 0, total: 4, bar: "[--------]" },
    { name: "a half bar at half way", done: 2, total: 4, bar: "[####----]" },
    { name: "a full bar when all is done", done: 4, total: 4, bar: "[########]" },
    { name: "an empty bar when there is nothing to do", done: 0, total: 0, bar: "[--------]" },
  ])("draws $name", ({ done, total, bar }) => {
    expect(progressBar(done, total, 8)).toBe(bar);
  });

  it("always has exactly width cells, filled monotonically with done", () => {
    fc.assert(
      fc.property(fc.nat(50), fc.nat(50), fc.integer({ min: 1, max: 60 }), (a, total, width) => {
        const done = Math.min(a, total);
        const bar = progressBar(done, total, width);
        const more = progressBar(Math.min(done + 1, total), total, width);
        expect(bar.length).toBe(width + 2);
        expect(more.split("#").length).toBeGreaterThanOrEqual(bar.split("#").length);
      }),
    );
  });
});

describe("rendering", () => {
  it("draws a frame with the overall bar, each step's bar and summary, and one line per Application", () => {
    const frame = renderFrame(view, { paint: plain, elapsedMs: 1500, barWidth: 4 });
    expect(frame[1]).toBe("  [##------] 1/4 Healthy");
    expect(frame.filter((l) => l.includes("Step "))).toEqual([
      "  Step 1  envLabel In (env-dev)",
      "  Step 2  envLabel In (env-qa)  maxUpdate 0",
      "  Step 3  envLabel In (env-prod)  maxUpdate 10%",
    ]);
    expect(frame.find((l) => l.includes("0/1"))).toContain("waiting for a manual sync");
    expect(frame.filter((l) => /^ {4}(dev|qa|prod)/.test(l))).toHaveLength(4);
  });

  it("counts deleted Applications in the bars once the deletion has begun", () => {
    const deleting = nextView(
      view,
      {
        appSet: appSet([
          ["dev", "1", "Healthy"],
          ["qa", "2", "Healthy"],
        ]),
        apps: [app("dev", "dev"), app("qa", "qa", { deleting: true })],
      },
      "guestbook",
    );
    const frame = renderFrame(deleting, { paint: plain, elapsedMs: 0, barWidth: 4 });
    expect(frame[1]).toBe("  [####----] 2/4 deleted");
    expect(frame.filter((l) => l.includes("/") && l.includes("deleted")).slice(1)).toEqual([
      "    [----] 0/1 deleted  done",
      "    [----] 0/1 deleted  deleting",
      "    [####] 2/2 deleted  deleted",
    ]);
    expect(frame.find((l) => l.includes("prod-eu "))).toMatch(/prod-eu +Deleted +- +-/);
  });

  it("prints one line per status change and per new rollout message, nothing when nothing changed", () => {
    const later = nextView(
      view,
      {
        appSet: appSet([
          ["dev", "1", "Healthy"],
          ["qa", "2", "Pending"],
          ["prod-eu", "3", "Waiting"],
          ["prod-us", "3", "Waiting"],
        ]),
        apps: APPS,
      },
      "guestbook",
    );
    expect(changeLines(view, later)).toEqual(["step 2  qa: Waiting -> Pending"]);
    expect(changeLines(later, later)).toEqual([]);
    expect(changeLines(undefined, view)).toContain("rollout  ApplicationSet is performing rollout of step 1");
  });

  it("sums up the phases with a total", () => {
    expect(
      renderSummary(
        [
          { name: "control plane start", ms: 4200 },
          { name: "rollout", ms: 61000 },
        ],
        70000,
      ),
    ).toEqual([
      "Wall time by phase:",
      "  control plane start     4.2 s",
      "  rollout                61.0 s",
      "  total                  70.0 s",
    ]);
  });
});

describe("plain reporter and stopwatch", () => {
  it("prefixes every line with the elapsed time and prints only changes", () => {
    let t = 0;
    const lines: string[] = [];
    const reporter = plainReporter(
      (l) => lines.push(l),
      () => t,
    );
    reporter.phase("Rollout");
    t = 2500;
    reporter.show(view);
    reporter.show(view);
    reporter.note("two\nlines");
    expect(lines[0]).toBe("[   0.0s] == Rollout");
    expect(lines.filter((l) => l.startsWith("[   2.5s] step"))).toHaveLength(4);
    expect(lines.slice(-2)).toEqual(["[   2.5s] two", "[   2.5s] lines"]);
  });

  it("records a phase's wall time even when the phase fails", async () => {
    let t = 0;
    const watch = new Stopwatch(() => t);
    await expect(
      watch.time("fails", () => {
        t = 1000;
        return Promise.reject(new Error("no"));
      }),
    ).rejects.toThrow("no");
    expect(watch.report()).toEqual({ phases: [{ name: "fails", ms: 1000 }], totalMs: 1000 });
  });
});

describe("parseFlags", () => {
  it.each([
    { name: "no flags run the demo and stop", args: [], flags: { keepCluster: false, printKubeconfig: false } },
    { name: "--keep-cluster keeps the cluster", args: ["--keep-cluster"], flags: { keepCluster: true, printKubeconfig: false } },
    { name: "both flags together", args: ["--print-kubeconfig", "--keep-cluster"], flags: { keepCluster: true, printKubeconfig: true } },
  ])("$name", ({ args, flags }) => {
    expect(parseFlags(args)).toEqual(flags);
  });

  it("rejects a flag it does not know, naming it", () => {
    expect(() => parseFlags(["--keep"])).toThrow("unknown flag --keep");
  });
});
