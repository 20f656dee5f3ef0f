import { describe, expect, it } from "vitest";
import { rolloutPolicyCrd, rolloutRunCrd } from "./crds.js";
import type { SchemaNode } from "./openapi.js";
import { at, rootOf } from "./schema-path.js";
import { structuralViolations, undeclaredPaths } from "./structural.js";

const policy = rootOf(rolloutPolicyCrd());
const run = rootOf(rolloutRunCrd());

describe("the rollout CRDs", () => {
  it.each([
    { name: "RolloutPolicy", crd: rolloutPolicyCrd(), plural: "rolloutpolicies", short: ["rpol"] },
    { name: "RolloutRun", crd: rolloutRunCrd(), plural: "rolloutruns", short: ["rrun"] },
  ])("$name is served as progressivesync.appset.dev/v1alpha1, namespaced, with a status subresource", ({ name, crd, plural, short }) => {
    const spec = crd["spec"] as { group: string; scope: string; names: Record<string, unknown>; versions: SchemaNode[] };
    expect((crd["metadata"] as { name: string }).name).toBe(`${plural}.progressivesync.appset.dev`);
    expect(spec.group).toBe("progressivesync.appset.dev");
    expect(spec.scope).toBe("Namespaced");
    expect(spec.names).toEqual({ kind: name, listKind: `${name}List`, plural, singular: name.toLowerCase(), shortNames: short });
    expect(spec.versions[0]!["subresources"]).toEqual({ status: {} });
  });

  it.each([
    { name: "RolloutPolicy", schema: policy },
    { name: "RolloutRun", schema: run },
  ])("the $name schema follows every structural rule the apiserver enforces", ({ schema }) => {
    expect(structuralViolations(schema)).toEqual([]);
  });

  it("declares maxFailures as int-or-string, in the defaults and per step", () => {
    for (const path of ["spec.defaults.maxFailures", "spec.steps.[].maxFailures"]) {
      expect(at(policy, path)["x-kubernetes-int-or-string"]).toBe(true);
    }
  });

  it("bounds what a tenant can write: requests, policy steps and names, duration strings", () => {
    expect(at(run, "spec.requests")["maxItems"]).toBe(200);
    expect(at(policy, "spec.steps")["maxItems"]).toBe(100);
    expect(at(policy, "spec.applicationSets.names")["maxItems"]).toBe(500);
    expect(at(policy, "spec.defaults.progressDeadline")["maxLength"]).toBe(64);
    expect(at(run, "spec.requests.[].by")["maxLength"]).toBe(256);
  });

  it("accepts only the five control actions", () => {
    expect(at(run, "spec.requests.[].action")["enum"]).toEqual(["pause", "resume", "promote", "abort", "approve"]);
  });

  it("declares every field of the ADR's example policy, so the apiserver prunes nothing", () => {
    const example = {
      apiVersion: "progressivesync.appset.dev/v1alpha1",
      kind: "RolloutPolicy",
      metadata: { name: "careful", namespace: "argocd" },
      spec: {
        applicationSets: { names: ["guestbook"], selector: { matchLabels: { tier: "prod" } } },
        defaults: { progressDeadline: "10m", maxFailures: "10%", soak: "15m" },
        steps: [{ step: 3, requireApproval: true, soak: "1h" }],
        rollback: { enabled: true, includeEarlierSteps: false },
        historyLimit: 10,
      },
    };
    expect(undeclaredPaths(policy, example)).toEqual([]);
  });

  it("declares every field of a run with requests and a rolled-back status", () => {
    const example = {
      apiVersion: "progressivesync.appset.dev/v1alpha1",
      kind: "RolloutRun",
      metadata: { name: "guestbook-3f2a1c9d", namespace: "argocd" },
      spec: {
        applicationSet: "guestbook",
        policy: "careful",
        sequence: 4,
        targetRevisions: [{ application: "prod-eu", revisions: ["9b8c7d6"] }],
        requests: [{ action: "approve", step: 2, by: "alice", at: "2026-12-06T10:00:00Z" }],
      },
      status: {
        phase: "Halted",
        currentStep: 2,
        haltReason: "ProgressDeadlineExceeded",
        message: "prod-eu: Degraded",
        startedAt: "2026-12-06T10:00:00Z",
        endedAt: null,
        pausedAt: null,
        steps: [
          {
            step: 2,
            phase: "RolledBack",
            applications: ["prod-eu"],
            counts: { total: 1, ready: 0, failed: 1, pending: 0 },
            toleratedFailures: [],
            startedAt: "2026-12-06T10:00:00Z",
            endedAt: "2026-12-06T10:10:00Z",
            deadline: "2026-12-06T10:10:00Z",
            soakStartedAt: null,
            soakRestarts: 0,
            approvedAt: "2026-12-06T10:00:00Z",
            message: "",
          },
        ],
        rollback: {
          at: "2026-12-06T10:10:00Z",
          applications: [{ application: "prod-eu", from: ["9b8c7d6"], to: ["3f2a1c9"] }],
          skipped: [],
        },
        observedRequests: 1,
        requests: [{ index: 0, applied: true, message: "approved step 2" }],
      },
    };
    expect(undeclaredPaths(run, example)).toEqual([]);
  });
});
