import { describe, expect, it } from "vitest";
import type { Application, OperationState, SyncPolicy } from "../api/index.js";
import { automatedOperation } from "./automated.js";

const last = (phase: OperationState["phase"], revision: string): OperationState => ({
  operation: { sync: {} },
  phase,
  startedAt: "2030-01-01T00:00:00Z",
  syncResult: { revision },
});

const app = (syncPolicy: SyncPolicy | undefined, operationState?: OperationState): Application => ({
  apiVersion: "argoproj.io/v1alpha1",
  kind: "Application",
  metadata: { name: "a" },
  spec: { project: "default", destination: {}, ...(syncPolicy ? { syncPolicy } : {}) },
  ...(operationState ? { status: { operationState } } : {}),
});

describe("automated sync", () => {
  it.each([
    { name: "starts when automated and OutOfSync", policy: { automated: {} }, sync: "OutOfSync", state: undefined, want: true },
    { name: "does nothing without automated", policy: undefined, sync: "OutOfSync", state: undefined, want: false },
    {
      name: "does nothing when automated.enabled is false",
      policy: { automated: { enabled: false } },
      sync: "OutOfSync",
      state: undefined,
      want: false,
    },
    { name: "does nothing when Synced", policy: { automated: {} }, sync: "Synced", state: undefined, want: false },
    {
      name: "starts for a new revision after a success",
      policy: { automated: {} },
      sync: "OutOfSync",
      state: last("Succeeded", "old"),
      want: true,
    },
    {
      name: "does not retry a revision that failed",
      policy: { automated: { selfHeal: true } },
      sync: "OutOfSync",
      state: last("Failed", "rev"),
      want: false,
    },
    {
      name: "without selfHeal leaves drift of the deployed revision alone",
      policy: { automated: {} },
      sync: "OutOfSync",
      state: last("Succeeded", "rev"),
      want: false,
    },
    {
      name: "with selfHeal repairs drift of the deployed revision",
      policy: { automated: { selfHeal: true } },
      sync: "OutOfSync",
      state: last("Succeeded", "rev"),
      want: true,
    },
  ] as const)("$name", ({ policy, sync, state, want }) => {
    expect(automatedOperation(app(policy as SyncPolicy | undefined, state), sync, "rev") !== undefined).toBe(want);
  });

  it("carries prune, the sync options, the default retry of five and the automated initiator", () => {
    const op = automatedOperation(app({ automated: { prune: true }, syncOptions: ["PruneLast=true"] }), "OutOfSync", "rev");
    expect(op).toEqual({
      sync: { revision: "rev", prune: true, syncOptions: ["PruneLast=true"] },
      initiatedBy: { automated: true },
      retry: { limit: 5 },
    });
  });
});
