/**
 * Rollout safety inside one reconcile (docs/progressive-syncs.md#rollout-safety): the step gate
 * RollingSync asks for (from {@link govern}, over the snapshot's RolloutPolicies and RolloutRuns),
 * and the rollback syncs attached to the desired Applications. Pure.
 */
import type { RenderedApplication } from "../generators/applications.js";
import { syncOperation, type PlannedApp, type RolloutDecision, type StepGate, type StepGateView } from "../progressivesync/index.js";
import { govern, resolvePolicy, type Governance, type RollbackSync } from "../progressivesync/safety/index.js";
import { RollingSyncOperation } from "../api/index.js";
import type { AppSetSnapshot } from "./snapshot.js";

/** The message of an entry rollout safety sends back to Waiting. */
export const RESET_MESSAGE = "Application moved back to Waiting by its RolloutRun, so it syncs again when its step starts";

/** The step gate of a pass and, once RollingSync has asked for it, what rollout safety decided. */
export interface SafetyPass {
  readonly gate: (view: StepGateView) => StepGate | undefined;
  readonly outcome: () => Governance | undefined;
}

/** Rollout safety for a snapshot, or undefined when it reads none (no RolloutPolicy CRD, or nothing read). */
export function safetyPass(s: AppSetSnapshot, now: number): SafetyPass | undefined {
  const read = s.rollout;
  if (read === undefined || read.policies.length === 0) return undefined;
  let outcome: Governance | undefined;
  const gate = (view: StepGateView): StepGate | undefined => {
    outcome = govern({
      appSet: s.appSet,
      policies: read.policies.map(resolvePolicy),
      runs: read.runs,
      appStep: view.assignment.appStep,
      stepCount: view.assignment.stepCount,
      entries: view.entries,
      observed: view.observed,
      live: s.live,
      now,
    });
    switch (outcome.kind) {
      case "ungoverned":
        return undefined;
      case "held":
        return { eligible: new Set(), reset: new Set(), resetMessage: RESET_MESSAGE, condition: outcome.condition };
      case "governed":
        return { eligible: outcome.eligible, reset: outcome.reset, resetMessage: RESET_MESSAGE, condition: outcome.condition };
    }
  };
  return { gate, outcome: () => outcome };
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

/** The template's `automated.prune` (a rollback prunes what the rolled-back revision added only when the template prunes). */
function templatePrune(app: RenderedApplication | undefined): boolean {
  const spec = isRecord(app?.spec) ? app.spec : {};
  const policy = isRecord(spec["syncPolicy"]) ? spec["syncPolicy"] : {};
  const automated = isRecord(policy["automated"]) ? policy["automated"] : undefined;
  return automated !== undefined && automated["enabled"] !== false && automated["prune"] === true;
}

/** The desired Applications with the rollback syncs attached (pinned to the last completed revisions, marked with the run). */
export function withRollbacks<D extends RolloutDecision<RenderedApplication>>(
  decision: D,
  rollbacks: readonly RollbackSync[],
  generated: readonly RenderedApplication[],
): D {
  if (rollbacks.length === 0) return decision;
  const byName = new Map(rollbacks.map((r) => [r.application, r]));
  const rendered = new Map(generated.map((g) => [g.metadata.name ?? "", g]));
  const applications = decision.applications.map((a): PlannedApp<RenderedApplication> => {
    const r = byName.get(a.metadata.name ?? "");
    if (r === undefined) return a;
    const op = syncOperation(a.spec, r.revisions, templatePrune(rendered.get(r.application)));
    return { ...a, operation: { ...op, info: [{ name: RollingSyncOperation.infoName, value: r.marker }] } };
  });
  return { ...decision, applications };
}
