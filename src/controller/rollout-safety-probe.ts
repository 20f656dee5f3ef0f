/**
 * Whether rollout safety can run (docs/progressive-syncs.md#rollout-safety): the RolloutPolicy and
 * RolloutRun CRDs are served and the controller may list both in its scope. Asked once at start,
 * before the informers exist, because an informer over a kind the apiserver does not serve (or
 * may not be read) never syncs. Not served or forbidden: rollout safety is off, logged, and every
 * ApplicationSet behaves as without a policy. An apiserver that does not answer is asked again for
 * up to {@link PROBE_ATTEMPTS} tries.
 */
import type { Clock } from "../clock/index.js";
import { errorMessage } from "../errors.js";
import { isForbidden, isNotFound, resources, type KubeReader } from "../kube/index.js";
import type { Logger } from "../log/logger.js";

/** Tries before giving up on an apiserver that does not answer. */
export const PROBE_ATTEMPTS = 10;
/** The pause between tries. */
export const PROBE_PAUSE_MS = 3_000;

/** True when rollout safety can run in `namespace` (undefined: every namespace). */
export async function rolloutSafetyAvailable(
  client: Pick<KubeReader, "list">,
  namespace: string | undefined,
  log: Logger,
  clock: Clock,
): Promise<boolean> {
  const scope = namespace !== undefined ? { namespace } : {};
  for (let attempt = 1; ; attempt++) {
    try {
      await client.list(resources.RolloutPolicies, { ...scope, limit: 1 });
      await client.list(resources.RolloutRuns, { ...scope, limit: 1 });
      log.info({}, "rollout safety on: RolloutPolicies and RolloutRuns are read");
      return true;
    } catch (err) {
      if (isNotFound(err)) {
        log.info({}, "rollout safety off: the RolloutPolicy and RolloutRun CRDs are not installed (deploy/rollout-crds)");
        return false;
      }
      if (isForbidden(err)) {
        log.warn(
          { error: errorMessage(err) },
          "rollout safety off: the controller may not list RolloutPolicies and RolloutRuns (see its Role)",
        );
        return false;
      }
      if (attempt >= PROBE_ATTEMPTS) {
        log.warn({ error: errorMessage(err) }, "rollout safety off: could not tell whether its CRDs are installed; restart to ask again");
        return false;
      }
      await clock.sleep(PROBE_PAUSE_MS);
    }
  }
}
