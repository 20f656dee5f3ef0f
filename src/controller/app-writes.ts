/**
 * The Application side of the executor's writes: creates and updates with conflict retries, stale
 * deletes, owner-reference strips and Reverse deletion's live check, each recording its event.
 *
 * - An update is a JSON merge patch carrying the live resourceVersion. A conflict (409), or a create
 *   that meets an existing name, re-reads the Application from the apiserver and recomputes the change
 *   with the pure {@link appChange}; a fresh read that needs nothing writes nothing.
 * - A conflict on a RollingSync write re-reads and gives up, leaving the next reconcile to decide, when
 *   the fresh Application shows the sync requested or run meanwhile ({@link syncedMeanwhile}).
 * - Read-your-writes (docs/controller.md#read-your-writes): the object each write returns goes into
 *   the Application cache at once ({@link AppWriteThrough}); a NotFound evicts the stale entry; a
 *   delete evicts unless the Application is left terminating.
 * - Dry run sends every write with `dryRun=All` and touches no cache.
 */
import { EventMessage, EventReason, parseApplication, type Application, type ApplicationSet } from "../api/index.js";
import { errorMessage } from "../errors.js";
import { isAlreadyExists, isConflict, isNotFound, resources, type KubeClient, type KubeObject, type ObjectKey } from "../kube/index.js";
import type { Logger } from "../log/logger.js";
import { ReverseDeletionError } from "../progressivesync/index.js";
import { syncedMeanwhile } from "./double-sync-guard.js";
import { appChange, type AppChange } from "./desired.js";
import type { EventSink } from "./events.js";
import type { AppDelete, AppWrite, DeletionCheck, OwnerStrip, PlannedEvent } from "./plan-types.js";

/** Attempts per Application write before giving up on conflicts. */
const MAX_ATTEMPTS = 5;

/** The Application cache's write side (read-your-writes). */
export interface AppWriteThrough {
  /** Stores what the apiserver returned for a create, update or patch. */
  written(obj: KubeObject): void;
  /** Evicts an Application a write found gone (NotFound). */
  gone(namespace: string | undefined, name: string): void;
  /** After a delete went through: evicts, unless the cached Application still has finalizers (terminating). */
  deleted(namespace: string | undefined, name: string): void;
}

/** What the writer needs. */
export interface AppWriterOptions {
  readonly client: KubeClient;
  readonly events: EventSink;
  readonly logger: Logger;
  /** `--dry-run`: every write is sent with `dryRun=All` and nothing is cached. */
  readonly dryRun: boolean;
  /** The Application cache to write through; absent, the cache waits for the watch. */
  readonly cache?: AppWriteThrough;
  /** Told of each planned create or update that went out (not of one that needed nothing). */
  readonly wrote: (appSet: ApplicationSet, w: AppWrite) => void;
}

function keyInNamespaceOf(appSet: ApplicationSet, name: string): ObjectKey {
  return { namespace: appSet.metadata.namespace, name };
}

/** Writes, deletes and reads the Applications of one controller's ApplicationSets. */
export class AppWriter {
  constructor(private readonly opts: AppWriterOptions) {}

  /**
   * Reverse deletion after the cache has shown an Application terminating for over two minutes: a live
   * GET; still present fails; absent evicts the stale cache entry with a DELETE carrying the UID
   * precondition (`fence` is asked right before it).
   */
  async checkDeleted(appSet: ApplicationSet, check: DeletionCheck, fence: () => void): Promise<void> {
    let fresh: Application | undefined;
    try {
      fresh = await this.readApp(appSet, check.name);
    } catch (err) {
      throw new Error(ReverseDeletionError.notVerified(check.name, errorMessage(err)), { cause: err });
    }
    if (fresh !== undefined) throw new Error(ReverseDeletionError.StillPresent);
    fence();
    try {
      const preconditions = check.uid !== undefined ? { preconditions: { uid: check.uid } } : {};
      await this.opts.client.delete(resources.Applications, keyInNamespaceOf(appSet, check.name), {
        dryRun: this.opts.dryRun,
        ...preconditions,
      });
      this.cacheGone(appSet, check.name);
    } catch (err) {
      if (isNotFound(err)) return this.cacheGone(appSet, check.name);
      if (isConflict(err)) throw new Error(ReverseDeletionError.recreated(check.name), { cause: err });
      throw new Error(ReverseDeletionError.notEvicted(check.name, errorMessage(err)), { cause: err });
    }
  }

  private async readApp(appSet: ApplicationSet, name: string): Promise<Application | undefined> {
    try {
      const raw = await this.opts.client.get(resources.Applications, keyInNamespaceOf(appSet, name));
      const parsed = parseApplication(raw);
      if (!parsed.ok) throw parsed.error;
      return parsed.value;
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }

  /**
   * One create or update, re-reading and recomputing after a conflict; a RollingSync write whose sync
   * the fresh read shows requested or run meanwhile is dropped (`seen`: the Application the plan read).
   */
  async write(appSet: ApplicationSet, w: AppWrite, signal?: AbortSignal, seen?: Application): Promise<void> {
    let change: AppChange = w.change;
    for (let attempt = 1; ; attempt++) {
      signal?.throwIfAborted();
      try {
        await this.writeOnce(appSet, w.name, change);
        if (change.kind !== "none") this.opts.wrote(appSet, w);
        return;
      } catch (err) {
        if (isNotFound(err)) this.cacheGone(appSet, w.name);
        const retry = isConflict(err) || isAlreadyExists(err) || (isNotFound(err) && change.kind === "update");
        if (!retry || attempt >= MAX_ATTEMPTS) throw err;
        const fresh = await this.readApp(appSet, w.name);
        const skip = syncedMeanwhile(w.desired.operation, seen, fresh);
        if (skip !== undefined) {
          this.opts.logger.info(
            { application: w.name, reason: skip },
            "not writing the sync operation again after a conflict; the next reconcile decides",
          );
          return;
        }
        change = appChange(w.desired, fresh);
      }
    }
  }

  private async writeOnce(appSet: ApplicationSet, name: string, change: AppChange): Promise<void> {
    const options = { dryRun: this.opts.dryRun };
    switch (change.kind) {
      case "none":
        return;
      case "error":
        throw new Error(change.message);
      case "create":
        this.cacheWritten(await this.opts.client.create(resources.Applications, change.object, options));
        this.event(appSet, { reason: EventReason.Created, message: EventMessage.created(name) });
        return;
      case "update":
        this.cacheWritten(
          await this.opts.client.patch(
            resources.Applications,
            keyInNamespaceOf(appSet, name),
            { type: "merge", body: change.patch },
            options,
          ),
        );
        this.opts.logger.debug({ application: name, patch: change.patch }, "updated Application");
        this.event(appSet, { reason: EventReason.Updated, message: EventMessage.updated(name) });
        return;
    }
  }

  /** Removes the resources finalizer first when asked, then deletes (NotFound counts as done). */
  async remove(appSet: ApplicationSet, d: AppDelete): Promise<void> {
    const key = keyInNamespaceOf(appSet, d.name);
    if (d.keepFinalizers !== undefined) {
      const patch = { type: "merge" as const, body: { metadata: { finalizers: [...d.keepFinalizers] } } };
      this.cacheWritten(
        await this.opts.client
          .patch(resources.Applications, key, patch, { dryRun: this.opts.dryRun })
          .catch((err: unknown) => this.goneThrow(appSet, d.name, err)),
      );
      this.event(appSet, { reason: EventReason.FinalizerUpdated, message: EventMessage.finalizerUpdated(d.name) });
    }
    if (!d.delete) return;
    try {
      await this.opts.client.delete(resources.Applications, key, {
        dryRun: this.opts.dryRun,
        ...(d.uid ? { preconditions: { uid: d.uid } } : {}),
      });
      if (!this.opts.dryRun) this.opts.cache?.deleted(key.namespace, d.name);
    } catch (err) {
      if (isNotFound(err)) return this.cacheGone(appSet, d.name);
      throw err;
    }
    this.event(appSet, { reason: EventReason.Deleted, message: EventMessage.deleted(d.name) });
  }

  /** Empties the owner references of an Application that must survive its ApplicationSet. */
  async strip(appSet: ApplicationSet, s: OwnerStrip): Promise<void> {
    let rv = s.resourceVersion;
    for (let attempt = 1; ; attempt++) {
      try {
        const body = { metadata: { ownerReferences: [], ...(rv ? { resourceVersion: rv } : {}) } };
        this.cacheWritten(
          await this.opts.client.patch(
            resources.Applications,
            keyInNamespaceOf(appSet, s.name),
            { type: "merge", body },
            { dryRun: this.opts.dryRun },
          ),
        );
        return;
      } catch (err) {
        if (isNotFound(err)) return this.cacheGone(appSet, s.name);
        if (!isConflict(err) || attempt >= MAX_ATTEMPTS) throw err;
        const fresh = await this.readApp(appSet, s.name);
        if (fresh === undefined || (fresh.metadata.ownerReferences ?? []).length === 0) return;
        rv = fresh.metadata.resourceVersion;
      }
    }
  }

  /** Read-your-writes: what the apiserver returned goes into the cache (never in dry run). */
  private cacheWritten(obj: KubeObject): void {
    if (!this.opts.dryRun) this.opts.cache?.written(obj);
  }

  /** A write found the Application gone: the stale cache entry is evicted (never in dry run). */
  private cacheGone(appSet: ApplicationSet, name: string): void {
    if (!this.opts.dryRun) this.opts.cache?.gone(appSet.metadata.namespace, name);
  }

  /** Evicts on NotFound, then rethrows `err`. */
  private goneThrow(appSet: ApplicationSet, name: string, err: unknown): never {
    if (isNotFound(err)) this.cacheGone(appSet, name);
    throw err;
  }

  /** Records an event without waiting for it: events never slow down or fail the writes. */
  private event(appSet: ApplicationSet, event: PlannedEvent): void {
    void this.opts.events.record(appSet, event);
  }
}
