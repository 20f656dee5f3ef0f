/**
 * The ApplicationSet side of the executor's writes (docs/controller.md#fenced-status-writes): the
 * status merge patch fenced by the resourceVersion the plan was made from, the metadata merge patch,
 * and a fresh read; each result goes into the ApplicationSet cache (never in dry run).
 */
import { parseApplicationSet, type ApplicationSet } from "../api/index.js";
import { AppSetError, errorMessage } from "../errors.js";
import { isConflict, isNotFound, resources, type KubeClient, type KubeObject, type ObjectKey } from "../kube/index.js";
import type { JsonObject } from "../json/index.js";
import { resourcesStatusError } from "./messages.js";

/** The ApplicationSet changed since the plan read it: its status write was refused (409), nothing was overwritten. */
export class StatusConflictError extends AppSetError {
  constructor(message: string, options?: { cause?: unknown }) {
    super("StatusConflict", message, options);
  }
}

/** `appSet` as it stands at `resourceVersion` (what later fenced writes must name). */
export function withResourceVersion(appSet: ApplicationSet, resourceVersion: string | undefined): ApplicationSet {
  return { ...appSet, metadata: { ...appSet.metadata, resourceVersion } };
}

/** What the writer needs. */
export interface AppSetWriterOptions {
  readonly client: KubeClient;
  /** `--dry-run`: every write is sent with `dryRun=All` and nothing is cached. */
  readonly dryRun: boolean;
  /** Stores an ApplicationSet the apiserver returned (or a fresh read) in the ApplicationSet cache. */
  readonly written?: (obj: KubeObject) => void;
}

const keyOf = (appSet: ApplicationSet): ObjectKey => ({ namespace: appSet.metadata.namespace, name: appSet.metadata.name ?? "" });

/** Writes and reads one controller's ApplicationSets. */
export class AppSetWriter {
  constructor(private readonly opts: AppSetWriterOptions) {}

  /**
   * Merge-patches the status, fenced by the resourceVersion the plan was made from: a newer
   * ApplicationSet (our own earlier write among them) fails it with a {@link StatusConflictError}
   * rather than being overwritten. Returns `appSet` at the resourceVersion the write produced; a gone
   * ApplicationSet is returned as it was.
   */
  async writeStatus(appSet: ApplicationSet, status: object): Promise<ApplicationSet> {
    const resourceVersion = appSet.metadata.resourceVersion;
    const fence = resourceVersion !== undefined && resourceVersion !== "" ? { metadata: { resourceVersion } } : {};
    try {
      const written = await this.opts.client.patchStatus(
        resources.ApplicationSets,
        keyOf(appSet),
        { type: "merge", body: { ...fence, status } },
        { dryRun: this.opts.dryRun },
      );
      return this.atVersionOf(appSet, written);
    } catch (err) {
      if (isNotFound(err)) return appSet;
      if (isConflict(err)) throw new StatusConflictError(resourcesStatusError(errorMessage(err)), { cause: err });
      throw new Error(resourcesStatusError(errorMessage(err)), { cause: err });
    }
  }

  /** Merge-patches the ApplicationSet with `body`; a gone ApplicationSet is returned as it was, other failures thrown. */
  async patch(appSet: ApplicationSet, body: JsonObject): Promise<ApplicationSet> {
    try {
      const written = await this.opts.client.patch(
        resources.ApplicationSets,
        keyOf(appSet),
        { type: "merge", body },
        { dryRun: this.opts.dryRun },
      );
      return this.atVersionOf(appSet, written);
    } catch (err) {
      if (isNotFound(err)) return appSet;
      throw err;
    }
  }

  /** The ApplicationSet as the apiserver has it now, or undefined when it is gone. */
  async read(appSet: ApplicationSet): Promise<ApplicationSet | undefined> {
    try {
      const raw = await this.opts.client.get(resources.ApplicationSets, keyOf(appSet));
      const parsed = parseApplicationSet(raw);
      if (!parsed.ok) throw parsed.error;
      this.opts.written?.(raw);
      return parsed.value;
    } catch (err) {
      if (isNotFound(err)) return undefined;
      throw err;
    }
  }

  /** `appSet` with the resourceVersion of what a write returned (unchanged in dry run, which stores nothing). */
  private atVersionOf(appSet: ApplicationSet, written: KubeObject): ApplicationSet {
    const resourceVersion = written.metadata?.resourceVersion;
    if (this.opts.dryRun || resourceVersion === undefined) return appSet;
    this.opts.written?.(written);
    return withResourceVersion(appSet, resourceVersion);
  }
}
