/**
 * A control request to a RolloutRun, as `appset rollout pause|resume|promote|abort|approve` send
 * it (docs/adr/0009-rollout-policy-crd.md): whether the run can take one, and the JSON patch that
 * appends it to `spec.requests`, guarded by the run's resourceVersion so two senders never
 * overwrite each other (the loser re-reads and tries again). Pure.
 */
import type { RolloutRun, RunRequest } from "../api/rollout-run.js";
import { MAX_RUN_REQUESTS } from "../api/rollout-constants.js";
import type { JsonPatchOp } from "../kube/index.js";
import { RunPhase } from "../progressivesync/safety/types.js";

/** The longest `by` the CRD accepts. */
export const MAX_BY_LENGTH = 256;

/** What a person asks of a run. */
export interface RequestInput {
  readonly action: RunRequest["action"];
  /** For approve: the 1-based step; absent for the step awaiting approval. */
  readonly step?: number;
  /** The sender's user name. */
  readonly by: string;
  /** RFC 3339, seconds. */
  readonly at: string;
}

/** The request as written to `spec.requests`. */
export function runRequest(r: RequestInput): RunRequest {
  return { action: r.action, ...(r.step === undefined ? {} : { step: r.step }), by: r.by.slice(0, MAX_BY_LENGTH), at: r.at };
}

/** Why the run takes no request, or undefined when it does. */
export function refusal(run: RolloutRun): string | undefined {
  const name = `RolloutRun ${run.metadata.name ?? ""}`;
  const phase = run.status?.phase;
  if (phase === RunPhase.Completed || phase === RunPhase.Aborted) return `${name} is ${phase}: it takes no more requests`;
  const held = run.spec.requests?.length ?? 0;
  if (held >= MAX_RUN_REQUESTS) return `${name} already holds ${String(held)} requests, the most it can hold (${String(MAX_RUN_REQUESTS)})`;
  return undefined;
}

/**
 * The JSON patch appending `request` to the run as read: a test of its resourceVersion, then an add
 * at the end of `spec.requests`, or of the whole array when the run has none yet.
 */
export function requestPatch(run: RolloutRun, request: RunRequest): JsonPatchOp[] {
  const guard: JsonPatchOp = { op: "test", path: "/metadata/resourceVersion", value: run.metadata.resourceVersion ?? "" };
  if (run.spec.requests === undefined) return [guard, { op: "add", path: "/spec/requests", value: [request] }];
  return [guard, { op: "add", path: "/spec/requests/-", value: request }];
}
