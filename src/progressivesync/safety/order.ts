/**
 * The order of an ApplicationSet's RolloutRuns, newest first (docs/progressive-syncs.md#rollout-safety).
 * The run a new one replaces, the run a halt is inherited from, the last completed rollout and the
 * history kept all read it, and so do the `appset rollout` commands.
 *
 * Start and creation times are whole seconds, so two runs started in one second would tie: each run
 * the controller creates carries `spec.sequence`, one more than the highest of the runs it knew, and
 * that decides first. Runs from before sequences (none, read as 0) fall back to the times.
 */
import type { RolloutRun } from "../../api/index.js";
import { parseTime } from "../observe.js";
import { HaltReason } from "./types.js";

const sequenceOf = (r: RolloutRun): number => r.spec.sequence ?? 0;
const createdOf = (r: RolloutRun): number => parseTime(r.metadata.creationTimestamp) ?? 0;
/** When the run started: `status.startedAt`, or its creation while the controller has not written a status yet. */
const startedOf = (r: RolloutRun): number => parseTime(r.status?.startedAt) ?? createdOf(r);
/** 1 for a run another replaced: of runs started in the same second, it is the older. */
const supersededOf = (r: RolloutRun): number => (r.status?.haltReason === HaltReason.Superseded ? 1 : 0);

/**
 * Runs newest first: the highest sequence, then the latest start, then (of runs started in one
 * second) the one not superseded, then the latest creation, then the name, descending, so the order
 * is total.
 */
export function newestFirst(runs: readonly RolloutRun[]): RolloutRun[] {
  return [...runs].sort((a, b) => {
    const diff =
      sequenceOf(b) - sequenceOf(a) || startedOf(b) - startedOf(a) || supersededOf(a) - supersededOf(b) || createdOf(b) - createdOf(a);
    if (diff !== 0) return diff;
    const an = a.metadata.name ?? "";
    const bn = b.metadata.name ?? "";
    return an < bn ? 1 : an > bn ? -1 : 0;
  });
}

/** The sequence of a run created now: one more than the highest of `runs`. */
export function nextSequence(runs: readonly RolloutRun[]): number {
  return runs.reduce((max, r) => Math.max(max, sequenceOf(r)), 0) + 1;
}
