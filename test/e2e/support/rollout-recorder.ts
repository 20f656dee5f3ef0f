/**
 * A recorder of a rollout as the apiserver saw it: one watch on the Applications and one on the
 * ApplicationSets of a namespace. Every change of an Application's sync or health status, revision,
 * operation, operation state or deletion, and every change of an ApplicationSet's
 * `applicationStatus`, `RolloutProgressing` condition or finalizers, is kept with the time it
 * arrived. {@link RolloutRecorder.waitFor} re-evaluates a condition on each event (no polling).
 */
import { errorMessage } from "../../../src/errors.js";
import { parseApplication, parseApplicationSet, type Application, type ApplicationSet } from "../../../src/api/index.js";
import { eventually } from "./controller.js";
import { resources, type KubeApiClient, type ResourceDescriptor, type WatchEvent } from "../../../src/kube/index.js";

/** What the recorder keeps of an Application at one moment. */
export interface AppState {
  readonly name: string;
  readonly env: string;
  readonly sync: string | undefined;
  readonly health: string | undefined;
  readonly revision: string | undefined;
  /** The requested operation: who asked and the revision it pins. */
  readonly operation: { readonly by: string; readonly revision: string | undefined } | undefined;
  readonly opPhase: string | undefined;
  readonly opStartedAt: string | undefined;
  /** The revision the last operation synced (`operationState.syncResult.revision`). */
  readonly opRevision: string | undefined;
  readonly deleting: boolean;
  readonly gone: boolean;
}

/** One recorded Application change. */
export interface AppEvent extends AppState {
  /** Milliseconds since the recorder started. */
  readonly t: number;
  readonly seq: number;
  /** The Application's resourceVersion in the event (absent in hand-made events). */
  readonly resourceVersion?: string;
}

/** One recorded ApplicationSet change. */
export interface SetEvent {
  readonly t: number;
  readonly seq: number;
  readonly name: string;
  /** `[application, step, status]` rows of `status.applicationStatus`. */
  readonly entries: ReadonlyArray<readonly [string, string, string, string]>;
  /** `RolloutProgressing` as "True: message" or "False: message". */
  readonly progressing: string | undefined;
  readonly finalizers: readonly string[];
  readonly gone: boolean;
}

function appState(app: Application, gone: boolean): AppState {
  const s = app.status;
  const op = app.operation;
  return {
    name: app.metadata.name ?? "",
    env: app.metadata.labels?.["envLabel"] ?? "",
    sync: s?.sync?.status,
    health: s?.health?.status,
    revision: s?.sync?.revision,
    operation: op === undefined ? undefined : { by: op.initiatedBy?.username ?? "", revision: op.sync?.revision },
    opPhase: s?.operationState?.phase,
    opStartedAt: s?.operationState?.startedAt,
    opRevision: s?.operationState?.syncResult?.revision,
    deleting: app.metadata.deletionTimestamp != null,
    gone,
  };
}

function setEvent(set: ApplicationSet, gone: boolean): Omit<SetEvent, "t" | "seq"> {
  const c = set.status?.conditions?.find((x) => x.type === "RolloutProgressing");
  return {
    name: set.metadata.name ?? "",
    entries: (set.status?.applicationStatus ?? []).map((e) => [e.application, e.step, e.status, e.lastTransitionTime ?? ""] as const),
    progressing: c === undefined ? undefined : `${c.status}: ${c.message}`,
    finalizers: set.metadata.finalizers ?? [],
    gone,
  };
}

const same = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b);

/** Records the Applications and ApplicationSets of one namespace until stopped. */
/** A watch the apiserver ended with 410 Gone: what it was watching from is no longer kept. */
class ExpiredWatch extends Error {}

/** Whether `err` is, or was caused by, an {@link ExpiredWatch} (the client wraps what a handler throws). */
function expired(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 10; e = e.cause, depth++) if (e instanceof ExpiredWatch) return true;
  return false;
}

export class RolloutRecorder {
  readonly apps: AppEvent[] = [];
  readonly sets: SetEvent[] = [];
  /** The latest state of each Application seen, by name (gone ones included). */
  readonly current = new Map<string, AppState>();
  /** The latest state of each ApplicationSet seen, by name. */
  readonly currentSets = new Map<string, SetEvent>();
  private readonly started = performance.now();
  private readonly abort = new AbortController();
  private readonly waiters = new Set<() => void>();
  private seq = 0;
  private failure: unknown;

  private constructor(
    private readonly client: KubeApiClient,
    private readonly namespace: string,
    private readonly reconnect: boolean,
  ) {}

  /**
   * Starts both watches; resolves once each has listed what exists. With `reconnect`, a watch whose
   * connection fails (an apiserver restart) is opened again from the last resourceVersion seen;
   * without it, such a failure fails every later `waitFor`.
   */
  static async start(client: KubeApiClient, namespace: string, opts: { reconnect?: boolean } = {}): Promise<RolloutRecorder> {
    const r = new RolloutRecorder(client, namespace, opts.reconnect ?? false);
    await Promise.all([r.follow(resources.Applications, (e) => r.onApp(e)), r.follow(resources.ApplicationSets, (e) => r.onSet(e))]);
    return r;
  }

  /** Milliseconds since the recorder started. */
  now(): number {
    return performance.now() - this.started;
  }

  private async follow(resource: ResourceDescriptor, on: (e: WatchEvent) => void): Promise<void> {
    let rv = "";
    // A fresh control plane may still answer "storage is (re)initializing" for a while.
    const relist = async (): Promise<void> => {
      const list = await eventually(`a list of ${resource.plural}`, () => this.client.list(resource, { namespace: this.namespace }));
      for (const item of list.items) on({ type: "ADDED", object: item });
      rv = list.resourceVersion;
    };
    await relist();
    const watchOnce = (): Promise<void> =>
      this.client.watch(
        resource,
        { namespace: this.namespace, resourceVersion: rv, timeoutSeconds: 300, signal: this.abort.signal },
        (e) => {
          if (e.type === "ERROR") {
            // After an apiserver restart the last resourceVersion seen may be compacted away: list again.
            if (this.reconnect && (e.object as { code?: number }).code === 410) throw new ExpiredWatch();
            throw new Error(`watch of ${resource.plural} failed: ${JSON.stringify(e.object)}`);
          }
          rv = e.object.metadata?.resourceVersion ?? rv;
          if (e.type !== "BOOKMARK") on(e);
        },
      );
    const loop = async (): Promise<void> => {
      while (!this.abort.signal.aborted) {
        try {
          await watchOnce();
        } catch (err) {
          if (expired(err)) {
            await relist();
            continue;
          }
          if (!this.reconnect || this.abort.signal.aborted || errorMessage(err).startsWith("watch of ")) throw err;
          await new Promise((resolve) => setTimeout(resolve, 200));
        }
      }
    };
    loop().catch((err: unknown) => {
      if (this.abort.signal.aborted) return;
      this.failure = err;
      this.wake();
    });
  }

  private onApp(e: WatchEvent): void {
    const parsed = parseApplication(e.object);
    if (!parsed.ok) return;
    const state = appState(parsed.value, e.type === "DELETED");
    const before = this.current.get(state.name);
    if (before !== undefined && same(before, state)) return;
    this.current.set(state.name, state);
    const resourceVersion = e.object.metadata?.resourceVersion;
    this.apps.push({ ...state, t: this.now(), seq: this.seq++, ...(resourceVersion === undefined ? {} : { resourceVersion }) });
    this.wake();
  }

  private onSet(e: WatchEvent): void {
    const parsed = parseApplicationSet(e.object);
    if (!parsed.ok) return;
    const next = setEvent(parsed.value, e.type === "DELETED");
    const before = this.currentSets.get(next.name);
    if (before !== undefined && same({ ...before, t: 0, seq: 0 }, { ...next, t: 0, seq: 0 })) return;
    const event = { ...next, t: this.now(), seq: this.seq++ };
    this.currentSets.set(next.name, event);
    this.sets.push(event);
    this.wake();
  }

  private wake(): void {
    for (const w of [...this.waiters]) w();
  }

  /** Resolves with the first value other than undefined `fn` returns, evaluated now and after each event. */
  waitFor<T>(what: string, fn: () => T | undefined, timeoutMs = 60_000): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const done = (): void => {
        clearTimeout(timer);
        this.waiters.delete(check);
      };
      const check = (): void => {
        if (this.failure !== undefined) {
          done();
          reject(new Error(`recorder failed: ${errorMessage(this.failure)}`));
          return;
        }
        const v = fn();
        if (v === undefined) return;
        done();
        resolve(v);
      };
      const timer = setTimeout(() => {
        this.waiters.delete(check);
        reject(
          new Error(
            `timed out after ${String(timeoutMs)} ms waiting for ${what}; last states: ${JSON.stringify([...this.current.values()])}`,
          ),
        );
      }, timeoutMs);
      this.waiters.add(check);
      check();
    });
  }

  /** The Applications of one env label, as last seen, sorted by name. */
  env(env: string): AppState[] {
    return [...this.current.values()].filter((a) => a.env === env).sort((a, b) => (a.name < b.name ? -1 : 1));
  }

  /** Every recorded change, one line each, in arrival order (for a failing test's report). */
  timeline(): string {
    const lines = [
      ...this.apps.map((e) => ({
        seq: e.seq,
        line: `${e.t.toFixed(0).padStart(7)} ms  app ${e.name}: ${String(e.sync)}/${String(e.health)} rev ${String(e.revision).slice(0, 7)} op ${e.operation ? `${e.operation.by}@${String(e.operation.revision).slice(0, 7)}` : "-"} state ${String(e.opPhase)}@${String(e.opRevision).slice(0, 7)}(${String(e.opStartedAt).slice(11, 19)})${e.deleting ? " deleting" : ""}${e.gone ? " gone" : ""}`,
      })),
      ...this.sets.map((e) => ({
        seq: e.seq,
        line: `${e.t.toFixed(0).padStart(7)} ms  set ${e.name}: ${String(e.progressing)} [${e.entries.map(([a, , s, lt]) => `${a}=${s}(${lt.slice(11, 19)})`).join(" ")}]${e.gone ? " gone" : ""}`,
      })),
    ];
    return lines
      .sort((a, b) => a.seq - b.seq)
      .map((l) => l.line)
      .join("\n");
  }

  /** Stops the watches. */
  stop(): void {
    this.abort.abort();
  }
}
