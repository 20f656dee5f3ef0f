import { describe, expect, it } from "vitest";
import { FakeClock } from "../clock/index.js";
import { KubeApiError, KubeReason } from "../kube/index.js";
import { FakeRuns, runObject } from "../../test/support/fake-rollout-runs.js";
import { RolloutCommandError, sendRequest, watchNewest, whoAmI } from "./rollout-cluster.js";

const W = { namespace: "argocd", applicationSet: "guestbook" };

const pause = { action: "pause" as const, by: "alice", at: "2026-01-01T00:00:00Z" };

describe("sendRequest", () => {
  it("creates the request list on the newest run", async () => {
    const k = new FakeRuns();
    k.add(runObject("old", { startedAt: "2025-01-01T00:00:00Z" }));
    k.add(runObject("new"));
    const sent = await sendRequest(k, W, pause);
    expect(sent).toMatchObject({ run: "new", index: 0, attempts: 1 });
    expect(k.runs.get("new")?.spec.requests).toEqual([pause]);
    expect(k.runs.get("old")?.spec.requests).toBeUndefined();
  });

  it("re-reads and sends again when someone else appended first, keeping both requests", async () => {
    const k = new FakeRuns();
    k.add(runObject("new", { requests: [pause] }));
    let raced = false;
    k.beforePatch = () => {
      if (!raced) k.append("new", { ...pause, by: "bob" });
      raced = true;
    };
    const sent = await sendRequest(k, W, { ...pause, action: "resume" });
    expect(sent).toMatchObject({ index: 2, attempts: 2 });
    expect(k.runs.get("new")?.spec.requests?.map((r) => `${r.action}:${r.by ?? ""}`)).toEqual(["pause:alice", "pause:bob", "resume:alice"]);
  });

  it("gives up after a bounded number of attempts under constant contention", async () => {
    const k = new FakeRuns();
    k.add(runObject("new"));
    k.beforePatch = () => k.append("new", { ...pause, by: "bob" });
    await expect(sendRequest(k, W, pause)).rejects.toThrow(/test operation failed/);
    expect(k.patches).toHaveLength(5);
  });

  it("does not retry an invalid request when the run did not move", async () => {
    const k = new FakeRuns();
    k.add(runObject("new"));
    k.beforePatch = () => {
      throw new KubeApiError({ status: 422, reason: KubeReason.Invalid, message: "spec.requests: Too many" });
    };
    await expect(sendRequest(k, W, pause)).rejects.toThrow(/Too many/);
    expect(k.patches).toHaveLength(1);
  });

  it.each([
    ["a completed run", runObject("new", { phase: "Completed" }), /is Completed/],
    ["an aborted run", runObject("new", { phase: "Aborted" }), /is Aborted/],
    ["a full request list", runObject("new", { requests: Array.from({ length: 200 }, () => pause) }), /already holds 200 requests/],
  ])("refuses %s without writing", async (_, run, why) => {
    const k = new FakeRuns();
    k.add(run);
    await expect(sendRequest(k, W, pause)).rejects.toSatisfy((e) => e instanceof RolloutCommandError && why.test(e.message));
    expect(k.patches).toEqual([]);
  });

  it("says there is no run", async () => {
    await expect(sendRequest(new FakeRuns(), W, pause)).rejects.toThrow(/no RolloutRun of ApplicationSet guestbook in namespace argocd/);
  });
});

describe("whoAmI", () => {
  it("takes the apiserver's name for the caller, else the kubeconfig's user", async () => {
    const k = new FakeRuns();
    expect(await whoAmI(k, "ctx-user")).toBe("alice@example.com");
    k.username = new KubeApiError({ status: 404, reason: KubeReason.NotFound, message: "no selfsubjectreviews" });
    expect(await whoAmI(k, "ctx-user")).toBe("ctx-user");
    k.username = "";
    expect(await whoAmI(k, "ctx-user")).toBe("ctx-user");
  });
});

describe("watchNewest", () => {
  it("shows the run on every change and ends when it finishes", async () => {
    const k = new FakeRuns();
    k.add(runObject("new"));
    const clock = new FakeClock();
    const seen: string[] = [];
    const end = watchNewest(k, W, { clock, timeoutMs: 60_000 }, (r) => seen.push(r.status?.phase ?? ""));
    await vi_waitFor(() => k.onEvent !== undefined);
    k.emit("new", "Paused");
    k.emit("new", "Halted");
    expect(await end).toMatchObject({ kind: "finished", run: { status: { phase: "Halted" } } });
    expect(seen).toEqual(["Running", "Paused", "Halted"]);
  });

  it("ends at once on a run already finished", async () => {
    const k = new FakeRuns();
    k.add(runObject("new", { phase: "Completed" }));
    const end = await watchNewest(k, W, { clock: new FakeClock(), timeoutMs: 1 }, () => undefined);
    expect(end.kind).toBe("finished");
  });

  it("times out on the injected clock", async () => {
    const k = new FakeRuns();
    k.add(runObject("new"));
    const clock = new FakeClock();
    const end = watchNewest(k, W, { clock, timeoutMs: 10_000 }, () => undefined);
    await vi_waitFor(() => k.onEvent !== undefined);
    clock.advance(9_999);
    k.emit("new", "Paused");
    clock.advance(1);
    expect(await end).toMatchObject({ kind: "timeout", run: { status: { phase: "Paused" } } });
  });
});

/** Lets the pending promises run until `cond` holds (no real time passes). */
async function vi_waitFor(cond: () => boolean): Promise<void> {
  for (let i = 0; i < 100 && !cond(); i++) await Promise.resolve();
  expect(cond()).toBe(true);
}
