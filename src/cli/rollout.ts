/**
 * `appset rollout`: the offline preview (`plan`) and the commands that read and steer the
 * RolloutRuns of an ApplicationSet on a cluster (`status`, `history`, `pause`, `resume`,
 * `promote`, `abort`, `approve`). Resolves to the exit code: `plan` keeps its own (0 ok, 1 failed,
 * 2 usage); the cluster commands exit 0 done, 1 the run Halted or was Aborted, 2 a watch timed out,
 * 3 no run, a refused request, a usage or an API error.
 */
import { isRecord } from "../api/index.js";
import { errorMessage } from "../errors.js";
import {
  CLUSTER_COMMANDS,
  CLUSTER_FLAGS,
  clusterCommand,
  RolloutUsageError,
  type ClusterCommand,
  type RolloutIO,
} from "./rollout-commands.js";
import { rolloutPlanCommand } from "./rollout-plan.js";
import { RolloutExit } from "./rollout-runs.js";

export type { RolloutIO } from "./rollout-commands.js";

/** The usage of `appset rollout`. */
export const ROLLOUT_USAGE = `Usage: appset rollout <command> APPSET [flags]

Commands:
  plan      preview a RollingSync rollout offline, with a policy's rules (appset rollout plan -h)
  status    the newest rollout run of an ApplicationSet: steps, progress, why it waits (-w follows it)
  history   every rollout run of an ApplicationSet, newest first
  pause     pause the newest run
  resume    resume a paused or halted run
  promote   skip the rest of the current soak, or approve the step awaiting approval
  abort     end the newest run for good
  approve   approve the step awaiting approval, or --step N ahead of time

${CLUSTER_FLAGS}`;

const isClusterCommand = (c: string | undefined): c is ClusterCommand => (CLUSTER_COMMANDS as readonly string[]).includes(c ?? "");

const isUsage = (err: unknown): boolean =>
  err instanceof RolloutUsageError || (isRecord(err) && typeof err["code"] === "string" && err["code"].startsWith("ERR_PARSE_ARGS"));

/** Runs `appset rollout ARGS`; resolves to the exit code. */
export async function rolloutCommand(args: readonly string[], io: RolloutIO): Promise<number> {
  const [command] = args;
  if (command === "plan") return rolloutPlanCommand(args, io);
  if (command === undefined || command === "help" || command === "-h" || command === "--help") {
    io.out(ROLLOUT_USAGE);
    return RolloutExit.Ok;
  }
  if (!isClusterCommand(command)) {
    io.err(`appset rollout: unknown command "${command}"\n\n${ROLLOUT_USAGE}`);
    return RolloutExit.Error;
  }
  try {
    return await clusterCommand(command, args.slice(1), io, ROLLOUT_USAGE);
  } catch (err) {
    io.err(
      isUsage(err)
        ? `appset rollout ${command}: ${errorMessage(err)}\n\n${ROLLOUT_USAGE}`
        : `appset rollout ${command}: ${errorMessage(err)}\n`,
    );
    return RolloutExit.Error;
  }
}
