/**
 * A scripted list+watch source and an informer over it, for the informer's own tests: the test decides
 * what each list returns and what each watch does. Used by tests only.
 */
import { FakeClock } from "../../src/clock/index.js";
import { Informer, type InformerOptions } from "../../src/kube/informer.js";
import type { KubeObject, ListOptions, ListWatchSource, ObjectList, WatchEvent, WatchOptions } from "../../src/kube/ports.js";
import { ConfigMaps } from "../../src/kube/resources.js";

/** One open watch call, driven by the test. */
export interface Session {
  options: WatchOptions;
  emit(event: WatchEvent): void;
  end(): void;
  fail(err: Error): void;
}

/**
 * A scripted list+watch source: the test decides what each list returns and what each watch does.
 * It exercises the informer's own loop; Kubernetes behaviour is covered by the e2e tests.
 */
export class ScriptedSource implements ListWatchSource {
  readonly sessions: Session[] = [];
  readonly listCalls: ListOptions[] = [];
  lists: Array<(o: ListOptions) => ObjectList | Promise<ObjectList>> = [];

  list(_r: unknown, options: ListOptions): Promise<ObjectList> {
    this.listCalls.push(options);
    const next = this.lists.length > 1 ? this.lists.shift() : this.lists[0];
    if (next === undefined) return Promise.reject(new Error("no list scripted"));
    return new Promise<ObjectList>((resolve, reject) => {
      options.signal?.addEventListener("abort", () => reject(new DOMException("aborted", "AbortError")), { once: true });
      Promise.resolve(next(options)).then(resolve, reject);
    });
  }

  watch(_r: unknown, options: WatchOptions, onEvent: (e: WatchEvent) => void): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      let open = true;
      const close = (fn: () => void): void => {
        if (open) fn();
        open = false;
      };
      options.signal?.addEventListener("abort", () => close(() => reject(new DOMException("aborted", "AbortError"))), { once: true });
      this.sessions.push({
        options,
        emit: (e) => {
          if (!open) return;
          try {
            onEvent(e);
          } catch (err) {
            close(() => reject(err instanceof Error ? err : new Error(String(err))));
          }
        },
        end: () => close(resolve),
        fail: (err: Error) => close(() => reject(err)),
      });
    });
  }

  get current(): Session {
    const s = this.sessions[this.sessions.length - 1];
    if (s === undefined) throw new Error("no watch open");
    return s;
  }
}

export const cm = (name: string, rv: string, data: Record<string, string> = {}, uid = `uid-${name}`): KubeObject => ({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name, namespace: "ns", resourceVersion: rv, uid },
  data,
});
export const list = (rv: string, ...items: KubeObject[]): ObjectList => ({ items, resourceVersion: rv });

export async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise<void>((r) => setImmediate(r));
}

/** An informer over a {@link ScriptedSource}, with every handler call recorded in `events`. */
export interface InformerSetup {
  clock: FakeClock;
  source: ScriptedSource;
  events: string[];
  informer: Informer<KubeObject>;
}

/** A ConfigMap informer of namespace "ns" on a FakeClock, not started. */
export function setup(extra: Partial<InformerOptions<KubeObject>> = {}): InformerSetup {
  const clock = new FakeClock();
  const source = new ScriptedSource();
  const events: string[] = [];
  const informer = new Informer<KubeObject>({
    source,
    resource: ConfigMaps,
    clock,
    namespace: "ns",
    idleTimeoutMs: 60_000,
    watchTimeoutSeconds: 300,
    random: () => 0,
    ...extra,
  });
  informer.on({
    add: (o) => events.push(`add ${o.metadata?.name}@${o.metadata?.resourceVersion}`),
    update: (a, b) => events.push(`update ${b.metadata?.name} ${a.metadata?.resourceVersion}->${b.metadata?.resourceVersion}`),
    delete: (o) => events.push(`delete ${o.metadata?.name}@${o.metadata?.resourceVersion}`),
  });
  return { clock, source, events, informer };
}
