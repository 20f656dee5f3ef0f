/**
 * Whether rollout safety can run (docs/progressive-syncs.md#rollout-safety): the RolloutPolicy and
 * RolloutRun CRDs are served and the controller may list both in its scope. Asked once at start,
 * before the informers exist, because an informer over a kind the apiserver does not serve (or
 * may not be read) never syncs. Not served or forbidden: rollout safety is off, logged, and every
 * ApplicationSet behaves as without a policy. An apiserver that does not answer is asked
 * {@link PROBE_ATTEMPTS} times, each within {@link PROBE_TIMEOUT_MS}; the process's stop signal
 * ends the probe at once (rollout safety off), so a SIGTERM is never held up by it.
 */
import type { Clock } from "../clock/index.js";
import { errorMessage } from "../errors.js";
import { isForbidden, isNotFound, resources, type KubeReader } from "../kube/index.js";
import type { Logger } from "../log/logger.js";

/** Tries before giving up on an apiserver that does not answer. */
export const PROBE_ATTEMPTS = 3;
/** The pause between tries. */
export const PROBE_PAUSE_MS = 1_000;
/** How long one try may take. */
export const PROBE_TIMEOUT_MS = 5_000;

type Outcome = boolean | "retry";

async function listBoth(client: Pick<KubeReader, "list">, namespace: string | undefined, signal: AbortSignal): Promise<void> {
  const scope = namespace !== undefined ? { namespace } : {};
  await client.list(resources.RolloutPolicies, { ...scope, limit: 1, signal });
  await client.list(resources.RolloutRuns, { ...scope, limit: 1, signal });
}

async function probeOnce(input: ProbeInput, signal: AbortSignal): Promise<Outcome> {
  const { log } = input;
  const bounded = AbortSignal.any([signal, AbortSignal.timeout(PROBE_TIMEOUT_MS)]);
  // The client may retry an unreachable apiserver on its own: the try ends at its time limit whatever it does.
  const listed = listBoth(input.client, input.namespace, bounded).then(
    () => true as const,
    (err: unknown) => err,
  );
  const timedOut = input.clock.sleep(PROBE_TIMEOUT_MS, signal).then(
    () => "retry" as const,
    () => "retry" as const,
  );
  const result = await Promise.race([listed, timedOut]);
  if (result === true) {
    log.info({}, "rollout safety on: RolloutPolicies and RolloutRuns are read");
    return true;
  }
  if (isNotFound(result)) {
    log.info({}, "rollout safety off: the RolloutPolicy and RolloutRun CRDs are not installed (deploy/rollout-crds)");
    return false;
  }
  if (isForbidden(result)) {
    log.warn(
      { error: errorMessage(result) },
      "rollout safety off: the controller may not list RolloutPolicies and RolloutRuns (see its Role)",
    );
    return false;
  }
  return signal.aborted ? false : "retry";
}

/** What the probe needs: the client, the scope (undefined: every namespace), and the stop signal. */
export interface ProbeInput {
  readonly client: Pick<KubeReader, "list">;
  readonly namespace: string | undefined;
  readonly log: Logger;
  readonly clock: Clock;
  readonly signal?: AbortSignal;
}

/** True when rollout safety can run in the probe's scope. */
export async function rolloutSafetyAvailable(input: ProbeInput): Promise<boolean> {
  const { log, clock } = input;
  const signal = input.signal ?? new AbortController().signal;
  for (let attempt = 1; !signal.aborted; attempt++) {
    const outcome = await probeOnce(input, signal);
    if (outcome !== "retry") return outcome;
    if (attempt >= PROBE_ATTEMPTS) {
      log.warn({}, "rollout safety off: the apiserver did not answer whether its CRDs are installed; restart to ask again");
      return false;
    }
    await clock.sleep(PROBE_PAUSE_MS, signal).catch(() => undefined);
  }
  return false;
}
