/**
 * Which RolloutRun the `appset rollout` commands speak of, and what a CI pipeline reads from it:
 * runs ordered newest first, and the exit code of `appset rollout status`. Pure.
 */
import type { RolloutRun } from "../api/rollout-run.js";
import { newestFirst } from "../progressivesync/safety/order.js";
import { HaltReason, RunPhase } from "../progressivesync/safety/types.js";

/** The exit codes of `appset rollout` (docs/cli.md#exit-codes-of-appset-rollout). */
export const RolloutExit = {
  /** Completed; without --watch also Running or Paused; a request sent. */
  Ok: 0,
  /** Halted or Aborted. */
  Failed: 1,
  /** --watch reached --timeout before the run ended. */
  TimedOut: 2,
  /** No run found, a usage error, an API error, or a request refused. */
  Error: 3,
} as const;
export type RolloutExit = (typeof RolloutExit)[keyof typeof RolloutExit];

/** The newest run, undefined when there is none. */
export function newestRun(runs: readonly RolloutRun[]): RolloutRun | undefined {
  return newestFirst(runs)[0];
}

/**
 * The halted run a Paused run waits behind: a run that starts after a halt starts Paused (a halt
 * holds until someone resumes), so its own status says only "paused". Walks the older runs newest
 * first, past other Paused runs and superseded ones; undefined when the run is not Paused or no halt
 * holds it.
 */
export function heldBehind(run: RolloutRun, runs: readonly RolloutRun[]): RolloutRun | undefined {
  if (run.status?.phase !== RunPhase.Paused) return undefined;
  const ordered = newestFirst(runs);
  const at = ordered.findIndex((r) => r.metadata.name === run.metadata.name);
  for (const older of ordered.slice(at + 1)) {
    const phase = older.status?.phase;
    if (phase === RunPhase.Halted) return older;
    if (phase !== RunPhase.Paused && older.status?.haltReason !== HaltReason.Superseded) return undefined;
  }
  return undefined;
}

/** True when the run can move no further: Completed, Halted or Aborted. */
export function isFinished(phase: string | undefined): boolean {
  return phase === RunPhase.Completed || phase === RunPhase.Halted || phase === RunPhase.Aborted;
}

/**
 * The exit code of `appset rollout status` for the run's phase: Halted or Aborted 1, Completed 0;
 * Running, Paused or no phase yet 0 for a look, 2 after a watch that timed out.
 */
export function statusExit(phase: string | undefined, watched: boolean): RolloutExit {
  if (phase === RunPhase.Halted || phase === RunPhase.Aborted) return RolloutExit.Failed;
  if (phase === RunPhase.Completed) return RolloutExit.Ok;
  return watched ? RolloutExit.TimedOut : RolloutExit.Ok;
}
