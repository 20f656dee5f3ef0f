/**
 * What the side-by-side benchmark reads off a running system: a process's memory and CPU from
 * `/proc`, the apiserver's request counters for `argoproj.io` from its `/metrics`, and a watch that
 * notes when a namespace's Applications reach a count or a label value.
 */
import { readFileSync } from "node:fs";
import { resources, type KubeApiClient, type KubeObject } from "../../src/kube/index.js";
import { httpCall } from "../../test/cluster/http.js";

/** One reading of a process. */
export interface ProcSample {
  /** Peak resident set size so far (`VmHWM`), MiB. */
  readonly hwmMiB: number;
  /** Resident set size now (`VmRSS`), MiB. */
  readonly rssMiB: number;
  /** User + system CPU so far, seconds. */
  readonly cpuSeconds: number;
  /** User + system CPU of its children that ended and were waited for, seconds. */
  readonly childCpuSeconds: number;
}

const CLOCK_TICKS = 100;

/** Memory and CPU of process `pid` (and not its children). */
export function procSample(pid: number): ProcSample {
  const status = readFileSync(`/proc/${String(pid)}/status`, "utf8");
  const kib = (field: string): number => Number(new RegExp(`^${field}:\\s+(\\d+)`, "m").exec(status)?.[1] ?? 0);
  const stat = readFileSync(`/proc/${String(pid)}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  // Fields 14 to 17 of stat (utime, stime, cutime, cstime) are 11 to 14 after the command name.
  const ticks = Number(fields[11]) + Number(fields[12]);
  const childTicks = Number(fields[13]) + Number(fields[14]);
  return {
    hwmMiB: kib("VmHWM") / 1024,
    rssMiB: kib("VmRSS") / 1024,
    cpuSeconds: ticks / CLOCK_TICKS,
    childCpuSeconds: childTicks / CLOCK_TICKS,
  };
}

/** Requests the apiserver served for `argoproj.io`, by verb (`POST`, `PUT`, `PATCH`, `DELETE`, `GET`, `LIST`, `WATCH`, ...). */
export type RequestCounts = Readonly<Record<string, number>>;

const WRITE_VERBS = new Set(["POST", "PUT", "PATCH", "DELETE", "DELETECOLLECTION", "APPLY"]);

/** The apiserver's `apiserver_request_total` for group `argoproj.io`, summed by verb. */
export async function argoRequests(server: string, token: string): Promise<RequestCounts> {
  const res = await httpCall("GET", `${server}/metrics`, { token, timeoutMs: 10_000 });
  if (res.status !== 200) throw new Error(`GET /metrics: HTTP ${String(res.status)}`);
  const counts: Record<string, number> = {};
  for (const line of res.body.split("\n")) {
    if (!line.startsWith("apiserver_request_total{") || !line.includes('group="argoproj.io"')) continue;
    const verb = /verb="([A-Z]+)"/.exec(line)?.[1] ?? "?";
    counts[verb] = (counts[verb] ?? 0) + Number(line.slice(line.lastIndexOf(" ") + 1));
  }
  return counts;
}

/** What was served between two readings: writes (every mutating verb) and reads (GET and LIST). */
export function requestDelta(before: RequestCounts, after: RequestCounts): { writes: number; reads: number } {
  let writes = 0;
  let reads = 0;
  for (const [verb, n] of Object.entries(after)) {
    const d = n - (before[verb] ?? 0);
    if (WRITE_VERBS.has(verb)) writes += d;
    else if (verb === "GET" || verb === "LIST") reads += d;
  }
  return { writes, reads };
}

/** A watch on one namespace's Applications. */
export interface AppWatch {
  /**
   * Resolves once `count` distinct Applications were added, with when the `count`th was seen (ms
   * since `performance.timeOrigin`), also when that was before the call.
   */
  added(count: number, timeoutMs: number): Promise<number>;
  /** Resolves (ms) once `count` distinct Applications carry label `key` = `value`. */
  labelled(key: string, value: string, count: number, timeoutMs: number): Promise<number>;
  /** Modifications seen so far. */
  readonly modified: () => number;
  stop(): void;
}

type Waiter = { ready: () => boolean; resolve: (t: number) => void };

/** Watches `namespace`'s Applications from now on. */
export async function watchApps(client: KubeApiClient, namespace: string): Promise<AppWatch> {
  const list = await client.list(resources.Applications, { namespace, limit: 1 });
  const added = new Set<string>();
  // When each new name was seen: a count reached before the caller asks is timed when it happened.
  const addedAt: number[] = [];
  const labels = new Map<string, Readonly<Record<string, string>>>();
  let modified = 0;
  const waiters = new Set<Waiter>();
  const abort = new AbortController();
  const wake = (): void => {
    for (const w of waiters) {
      if (!w.ready()) continue;
      waiters.delete(w);
      w.resolve(performance.now());
    }
  };
  const onEvent = (e: { type: string; object: KubeObject }): void => {
    const name = e.object.metadata?.name ?? "";
    if (e.type === "ADDED" && !added.has(name)) {
      added.add(name);
      addedAt.push(performance.now());
    }
    if (e.type === "MODIFIED") modified++;
    if (e.type === "ADDED" || e.type === "MODIFIED") labels.set(name, e.object.metadata?.labels ?? {});
    wake();
  };
  const loop = async (rv: string): Promise<void> => {
    while (!abort.signal.aborted) {
      await client
        .watch(resources.Applications, { namespace, resourceVersion: rv, allowWatchBookmarks: true, signal: abort.signal }, (e) => {
          if (e.object.metadata?.resourceVersion !== undefined) rv = e.object.metadata.resourceVersion;
          onEvent(e);
        })
        .catch(() => undefined);
    }
  };
  void loop(list.resourceVersion);
  const wait = (ready: () => boolean, what: string, timeoutMs: number): Promise<number> => {
    if (ready()) return Promise.resolve(performance.now());
    return new Promise((resolve, reject) => {
      const w: Waiter = { ready, resolve: (t) => (clearTimeout(timer), resolve(t)) };
      const timer = setTimeout(() => (waiters.delete(w), reject(new Error(`timed out after ${String(timeoutMs)} ms: ${what}`))), timeoutMs);
      waiters.add(w);
    });
  };
  return {
    added: async (count, timeoutMs) => {
      await wait(() => added.size >= count, `${String(count)} Applications added (${String(added.size)} seen)`, timeoutMs);
      return addedAt[count - 1]!;
    },
    labelled: (key, value, count, timeoutMs) =>
      wait(
        () => [...labels.values()].filter((l) => l[key] === value).length >= count,
        `${String(count)} Applications with ${key}=${value}`,
        timeoutMs,
      ),
    modified: () => modified,
    stop: () => abort.abort(),
  };
}
