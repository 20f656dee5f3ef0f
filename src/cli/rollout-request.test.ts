import { describe, expect, it } from "vitest";
import type { RolloutRun, RunRequest } from "../api/rollout-run.js";
import { MAX_BY_LENGTH, refusal, requestPatch, runRequest } from "./rollout-request.js";

const run = (o: { phase?: string; requests?: RunRequest[]; rv?: string } = {}): RolloutRun => ({
  apiVersion: "progressivesync.appset.dev/v1alpha1",
  kind: "RolloutRun",
  metadata: { name: "guestbook-1", namespace: "argocd", resourceVersion: o.rv ?? "42" },
  spec: { applicationSet: "guestbook", ...(o.requests === undefined ? {} : { requests: o.requests }) },
  ...(o.phase === undefined ? {} : { status: { phase: o.phase } }),
});
const pause: RunRequest = { action: "pause", by: "alice", at: "2026-12-06T10:00:00Z" };

describe("requestPatch", () => {
  it("creates the array when the run holds no request, after a resourceVersion test", () => {
    expect(requestPatch(run({ rv: "7" }), pause)).toEqual([
      { op: "test", path: "/metadata/resourceVersion", value: "7" },
      { op: "add", path: "/spec/requests", value: [pause] },
    ]);
  });

  it("appends to the end of an existing array", () => {
    expect(requestPatch(run({ requests: [pause], rv: "8" }), { ...pause, action: "resume" })).toEqual([
      { op: "test", path: "/metadata/resourceVersion", value: "8" },
      { op: "add", path: "/spec/requests/-", value: { ...pause, action: "resume" } },
    ]);
  });

  it("appends to an empty array rather than replacing it", () => {
    expect(requestPatch(run({ requests: [] }), pause)[1]).toEqual({ op: "add", path: "/spec/requests/-", value: pause });
  });
});

describe("runRequest", () => {
  // [ case, input, request ]
  const cases: [string, Parameters<typeof runRequest>[0], RunRequest][] = [
    ["no step", { action: "pause", by: "alice", at: "t" }, { action: "pause", by: "alice", at: "t" }],
    ["an approval of step 3", { action: "approve", step: 3, by: "bob", at: "t" }, { action: "approve", step: 3, by: "bob", at: "t" }],
    [
      "a name cut to what the CRD takes",
      { action: "abort", by: "x".repeat(300), at: "t" },
      { action: "abort", by: "x".repeat(MAX_BY_LENGTH), at: "t" },
    ],
  ];
  it.each(cases)("%s", (_, input, want) => {
    expect(runRequest(input)).toEqual(want);
  });
});

describe("refusal", () => {
  // [ case, run, refusal text (undefined: accepted) ]
  const cases: [string, RolloutRun, RegExp | undefined][] = [
    ["a running run", run({ phase: "Running" }), undefined],
    ["a run without status", run(), undefined],
    ["a paused run", run({ phase: "Paused" }), undefined],
    ["a halted run (resume may restart it)", run({ phase: "Halted" }), undefined],
    ["a completed run", run({ phase: "Completed" }), /guestbook-1 is Completed: it takes no more requests/],
    ["an aborted run", run({ phase: "Aborted" }), /guestbook-1 is Aborted/],
    ["199 requests", run({ requests: Array.from({ length: 199 }, () => pause) }), undefined],
    [
      "200 requests",
      run({ requests: Array.from({ length: 200 }, () => pause) }),
      /already holds 200 requests, the most it can hold \(200\)/,
    ],
  ];
  it.each(cases)("%s", (_, r, want) => {
    const got = refusal(r);
    if (want === undefined) expect(got).toBeUndefined();
    else expect(got).toMatch(want);
  });
});
