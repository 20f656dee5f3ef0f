import { describe, expect, it } from "vitest";
import { FakeClock } from "../clock/index.js";
import { FakeRuns, runObject } from "../../test/support/fake-rollout-runs.js";
import { rolloutCommand } from "./rollout.js";

// `appset rollout status|history|pause|...` in-process, on an in-memory cluster and a fake clock.

async function run(k: FakeRuns, ...args: string[]) {
  return start(k, { isTTY: false }, ...args).done;
}

/** Starts a command; `output()` is what it printed so far. */
function start(k: FakeRuns, o: { isTTY: boolean; clock?: FakeClock }, ...args: string[]) {
  let out = "";
  let err = "";
  let closed = 0;
  const clock = o.clock ?? new FakeClock(Date.parse("2026-01-01T00:10:00Z"));
  const code = rolloutCommand(args, {
    out: (s) => (out += s),
    err: (s) => (err += s),
    env: {},
    clock,
    isTTY: o.isTTY,
    kube: () => ({ client: k, contextUser: "ctx-user", contextNamespace: "argocd", close: () => Promise.resolve(void closed++) }),
  });
  return { done: code.then((c) => ({ code: c, out, err, closed })), output: () => out };
}

/** Lets pending promises run until `cond` holds (no real time passes). */
async function settle(cond: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !cond(); i++) await Promise.resolve();
  expect(cond()).toBe(true);
}

const cluster = (phase?: string): FakeRuns => {
  const k = new FakeRuns();
  if (phase !== undefined) k.add(runObject("guestbook-1", { phase }));
  return k;
};

describe("appset rollout (cluster commands)", () => {
  // [ case, phase of the newest run (none: no run), arguments, exit code, text on stdout or stderr ]
  const cases: [string, string | undefined, string[], number, RegExp][] = [
    [
      "status of a running run",
      "Running",
      ["status", "guestbook"],
      0,
      /Phase: {10}Running\nStarted: {8}2026-01-01T00:00:00Z\nElapsed: {8}10m0s/,
    ],
    ["status of a completed run", "Completed", ["status", "guestbook", "-n", "argocd"], 0, /Phase: {10}Completed/],
    ["status of a halted run", "Halted", ["status", "guestbook"], 1, /Phase: {10}Halted/],
    ["status of an aborted run", "Aborted", ["status", "guestbook"], 1, /Phase: {10}Aborted/],
    ["status as JSON", "Paused", ["status", "guestbook", "-o", "json"], 0, /"phase": "Paused"/],
    ["status without a run", undefined, ["status", "guestbook"], 3, /no RolloutRun of ApplicationSet guestbook in namespace argocd/],
    ["status --watch of a finished run", "Completed", ["status", "guestbook", "--watch", "--timeout", "5s"], 0, /Completed/],
    ["history", "Completed", ["history", "guestbook"], 0, /^RUN +PHASE.*\nguestbook-1 +Completed/],
    ["history without a run", undefined, ["history", "guestbook"], 3, /no RolloutRun/],
    [
      "pause",
      "Running",
      ["pause", "guestbook"],
      0,
      /Sent pause to RolloutRun guestbook-1 \(namespace argocd\) as request #0: .*"by":"alice@example.com","at":"2026-01-01T00:10:00Z"/,
    ],
    ["approve a step", "Running", ["approve", "guestbook", "--step", "3"], 0, /Sent approve of step 3 .*"action":"approve","step":3/],
    ["pause a completed run", "Completed", ["pause", "guestbook"], 3, /RolloutRun guestbook-1 is Completed: it takes no more requests/],
    ["no ApplicationSet", "Running", ["status"], 3, /takes one ApplicationSet name/],
    ["a bad output format", "Running", ["history", "guestbook", "-o", "yaml"], 3, /unknown output format "yaml"/],
    ["--step on pause", "Running", ["pause", "guestbook", "--step", "1"], 3, /--step is not a flag of appset rollout pause/],
    ["a bad step", "Running", ["approve", "guestbook", "--step", "0"], 3, /--step must be a step number/],
    ["--watch on history", "Running", ["history", "guestbook", "-w"], 3, /--watch is not a flag of appset rollout history/],
    ["--timeout without --watch", "Running", ["status", "guestbook", "--timeout", "1m"], 3, /--timeout is not a flag/],
    ["a bad --timeout", "Running", ["status", "guestbook", "-w", "--timeout", "soon"], 3, /--timeout: time: invalid duration "soon"/],
    ["an unknown flag", "Running", ["status", "guestbook", "--nope"], 3, /Unknown option '--nope'/],
    ["an unknown command", "Running", ["rewind", "guestbook"], 3, /unknown command "rewind"/],
  ];
  it.each(cases)("%s", async (_, phase, args, code, text) => {
    const res = await run(cluster(phase), ...args);
    expect(res.code).toBe(code);
    expect(code === 3 ? res.err : res.out).toMatch(text);
  });

  it("appends what it sends to the run, and closes the client", async () => {
    const k = cluster("Paused");
    const res = await run(k, "resume", "guestbook");
    expect(res.closed).toBe(1);
    expect(k.runs.get("guestbook-1")?.spec.requests).toEqual([{ action: "resume", by: "alice@example.com", at: "2026-01-01T00:10:00Z" }]);
  });

  it("signs with the kubeconfig's user when the apiserver does not say who the caller is", async () => {
    const k = cluster("Running");
    k.username = new Error("selfsubjectreviews disabled");
    await run(k, "abort", "guestbook");
    expect(k.runs.get("guestbook-1")?.spec.requests?.[0]?.by).toBe("ctx-user");
  });
});

describe("appset rollout status --watch", () => {
  it("clears the screen before each render on a terminal, with progress bars", async () => {
    const k = cluster("Running");
    const w = start(k, { isTTY: true }, "status", "guestbook", "-w");
    await settle(() => k.onEvent !== undefined);
    k.emit("guestbook-1", "Completed");
    const res = await w.done;
    expect(res.code).toBe(0);
    const screens = res.out.split("\u001b[H\u001b[2J");
    expect(screens.slice(1).map((sc) => sc.split("\n")[2])).toEqual(["Phase:          Running", "Phase:          Completed"]);
    expect(screens[0]).toBe("");
  });

  it("separates renders with a time line without a terminal, and exits 2 at the timeout", async () => {
    const k = cluster("Running");
    const clock = new FakeClock(Date.parse("2026-01-01T00:10:00Z"));
    const w = start(k, { isTTY: false, clock }, "status", "guestbook", "--watch", "--timeout", "1m");
    await settle(() => k.onEvent !== undefined);
    clock.advance(30_000);
    k.emit("guestbook-1", "Paused");
    clock.advance(30_000);
    const res = await w.done;
    expect(res.code).toBe(2);
    expect(res.out).not.toContain("\u001b");
    expect(res.out).toContain("Phase:          Running\n");
    expect(res.out).toContain("\n--- 2026-01-01T00:10:30Z\nApplicationSet: guestbook (namespace argocd)\n");
    expect(res.out).toContain("Phase:          Paused\n");
    expect(res.err).toBe("appset rollout status: timed out after 1m: RolloutRun guestbook-1 is still Paused\n");
  });

  it("prints one JSON line per change with -o json, and exits 1 on Aborted", async () => {
    const k = cluster("Running");
    const w = start(k, { isTTY: true }, "status", "guestbook", "-w", "-o", "json");
    await settle(() => k.onEvent !== undefined);
    k.emit("guestbook-1", "Aborted");
    const res = await w.done;
    expect(res.code).toBe(1);
    expect(
      res.out
        .trimEnd()
        .split("\n")
        .map((l) => (JSON.parse(l) as { status: { phase: string } }).status.phase),
    ).toEqual(["Running", "Aborted"]);
  });
});
