/**
 * Rollout safety's writes of one pass (docs/progressive-syncs.md#rollout-safety): create the new
 * RolloutRun, end the run it supersedes, replace the current run's status, and delete the runs
 * beyond the history limit. Status writes replace the whole status and are fenced by the
 * resourceVersion the run was read at, so a control request appended meanwhile is never counted
 * as applied: the write fails with a conflict and the next pass applies it. Every object the
 * apiserver returns goes to the RolloutRun cache at once (read-your-writes).
 */
import type { ApplicationSet, RolloutRun } from "../api/index.js";
import { isNotFound, resources, type KubeClient, type KubeObject } from "../kube/index.js";
import type { RunStatusWrite, RunWrites } from "../progressivesync/safety/index.js";

/** What the writer needs. */
export interface RunWriterOptions {
  readonly client: KubeClient;
  readonly dryRun: boolean;
  /** Stores a RolloutRun the apiserver returned in the RolloutRun cache. */
  readonly written?: (obj: KubeObject) => void;
  /** Drops a deleted RolloutRun from the cache. */
  readonly gone?: (namespace: string | undefined, name: string) => void;
}

async function writeStatus(opts: RunWriterOptions, base: RolloutRun, w: RunStatusWrite): Promise<void> {
  const written = await opts.client.updateStatus<KubeObject>(resources.RolloutRuns, { ...base, status: w.status }, { dryRun: opts.dryRun });
  opts.written?.(written);
}

async function create(opts: RunWriterOptions, run: RolloutRun | undefined): Promise<RolloutRun | undefined> {
  if (run === undefined) return undefined;
  const created = await opts.client.create<KubeObject>(resources.RolloutRuns, run, { dryRun: opts.dryRun });
  opts.written?.(created);
  return created as RolloutRun;
}

async function remove(opts: RunWriterOptions, namespace: string | undefined, names: readonly string[]): Promise<void> {
  for (const name of names) {
    try {
      await opts.client.delete(resources.RolloutRuns, { namespace, name }, { dryRun: opts.dryRun });
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
    opts.gone?.(namespace, name);
  }
}

/** Makes the writes, in order; rejects with the first failure (the pass is retried). */
export async function writeRuns(opts: RunWriterOptions, appSet: ApplicationSet, w: RunWrites): Promise<void> {
  const created = await create(opts, w.create);
  if (w.supersede?.resource !== undefined) await writeStatus(opts, w.supersede.resource, w.supersede);
  const base = w.status?.resource ?? created;
  if (w.status !== undefined && base !== undefined) await writeStatus(opts, base, w.status);
  await remove(opts, appSet.metadata.namespace, w.delete);
}
