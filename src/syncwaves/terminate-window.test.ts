import { describe, expect, it } from "vitest";
import { FakeKubeClient } from "../../test/support/fake-kube-client.js";
import { application, appProject } from "../../test/unit/syncwaves/builders.js";
import type { Application, OperationState, SyncWindow } from "../api/index.js";
import { FakeClock } from "../clock/index.js";
import { resources, type KubeObject } from "../kube/index.js";
import { silentLogger } from "../log/logger.js";
import type { ReconcileContext } from "../manager/worker.js";
import { windowHold } from "./gated.js";
import type { ProjectSettings } from "./project-gate.js";
import { AppReconciler } from "./reconcile.js";

const NOW = Date.parse("2030-01-01T12:30:00Z");
/** A deny window open from 12:00 to 13:00 every day, for `shop`. */
const DENY: SyncWindow = { kind: "deny", schedule: "0 12 * * *", duration: "1h", applications: ["shop"] };
const BLOCKED = "Sync operation blocked by sync window";

/** An operation of `shop` in `phase`, started inside the window. */
function operation(phase: OperationState["phase"], automated = true): OperationState {
  return {
    operation: { sync: { revision: "abc123" }, initiatedBy: { automated } },
    phase,
    message: "waiting for completion of hook batch/Job/migrate",
    startedAt: "2030-01-01T12:10:00Z",
    syncResult: { revision: "abc123", resources: [] },
  };
}

describe("windowHold", () => {
  it.each<{ name: string; state: OperationState; windows: SyncWindow[] | undefined; want: string | undefined }>([
    // state: the operation; windows: its project's; want: the held state's message (undefined: not held)
    { name: "a running automated operation inside a deny window is held", state: operation("Running"), windows: [DENY], want: BLOCKED },
    { name: "a running manual operation inside a deny window is held", state: operation("Running", false), windows: [DENY], want: BLOCKED },
    { name: "a terminate request inside a deny window is not held", state: operation("Terminating"), windows: [DENY], want: undefined },
    { name: "a manual terminate request is not held either", state: operation("Terminating", false), windows: [DENY], want: undefined },
    { name: "a running operation without windows runs", state: operation("Running"), windows: [], want: undefined },
    { name: "a running operation without the project gate runs", state: operation("Running"), windows: undefined, want: undefined },
  ])("$name", ({ state, windows, want }) => {
    const held = windowHold(application(), state, windows, NOW);
    expect(held?.message).toBe(want);
    if (held !== undefined) expect(held.phase).toBe(state.phase);
  });
});

const settings: ProjectSettings = {
  namespace: "argocd",
  project: (name) => (name === "team" ? appProject({ syncWindows: [DENY] }) : undefined),
  clusters: () => [],
  inClusterEnabled: () => true,
  impersonationEnabled: () => false,
  impersonationEnforced: () => false,
  projectRepositories: () => [],
};

const ctx = (): ReconcileContext => ({
  reconcileId: "r",
  logger: silentLogger(),
  signal: new AbortController().signal,
  stopping: new AbortController().signal,
});

describe("a reconcile of an operation inside a deny window", () => {
  it.each([
    // phase: the operation's; want: its phase and message afterwards
    { name: "ends a terminate request", phase: "Terminating" as const, want: { phase: "Failed", message: "Operation terminated" } },
    { name: "holds a running operation", phase: "Running" as const, want: { phase: "Running", message: BLOCKED } },
  ])("$name", async ({ phase, want }) => {
    const state = operation(phase);
    const client = new FakeKubeClient();
    client.seed(resources.Applications, application({ operation: state.operation, status: { operationState: state } }));
    const reconciler = new AppReconciler({
      client,
      resolve: () => Promise.reject(new Error("no managed object is resolved")),
      source: { read: () => Promise.resolve({ revision: "abc123", objects: [] as KubeObject[] }) },
      clock: new FakeClock(NOW),
      log: silentLogger(),
      projects: settings,
    });
    await reconciler.reconcile("argocd/shop", ctx());
    // Application has no status subresource: the reconciler writes its status with an update.
    const written = client.actions.filter((a) => a.verb === "update").map((a) => (a.object as Application).status?.operationState);
    expect(written).toEqual([expect.objectContaining(want)]);
  });
});
