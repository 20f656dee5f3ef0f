/**
 * `/debug/pprof/` on the metrics server, gated as Argo CD gates it: every request first asks
 * whether the profiler is on (Argo CD reads its gate file, `ARGOCD_ENABLE_PROFILER_FILE_PATH`, each
 * time), and answers 401 with Argo CD's message when it is not. When it is on, the profiles are
 * Node's, not Go's (docs/configuration.md#profiler):
 *
 * - `heap?seconds=N`: a V8 sampling heap profile of N seconds (default 30, as the CPU profile),
 *   `.heapprofile`: the allocation sites and sizes of what was allocated in those seconds and is
 *   still live, as Go's heap profile holds sites and sizes. It holds no values, so no secrets.
 * - `heapsnapshot`: a full V8 heap snapshot (`.heapsnapshot`), only when the process is started
 *   with the heap snapshot setting. It holds every value in memory (tokens, passwords, keys), so
 *   it is refused with 403 otherwise. Taking it pauses the process and needs about as much memory
 *   again as the heap.
 * - `profile?seconds=N`: a V8 CPU profile of N seconds (default 30, as Go's), `.cpuprofile`.
 * - `cmdline`: the command line, NUL-separated, as Go's.
 *
 * Any other profile name is a 404 `Unknown profile`, as Go's handler answers.
 */
import type { ServerResponse } from "node:http";
import type { Session } from "node:inspector/promises";
import { pipeline } from "node:stream/promises";
import { readFile } from "node:fs/promises";
import { getHeapSnapshot } from "node:v8";
import type { Clock } from "../clock/index.js";
import { sendText, type Handler } from "./http.js";

/** Argo CD's answer on the profiler paths when the profiler is not enabled (Go's http.Error adds the newline). */
export const PROFILER_DISABLED = "Profiler endpoint is not enabled in 'argocd-cmd-params-cm' ConfigMap\n";

/** The answer on `heapsnapshot` while the heap snapshot setting is off. */
export const HEAP_SNAPSHOT_DISABLED =
  "Heap snapshots are off: a snapshot holds every secret in the process's memory; start the process with --profiler-heap-snapshot to serve them\n";

/** Go's default and this server's longest CPU profile, in seconds. */
export const DEFAULT_PROFILE_SECONDS = 30;
export const MAX_PROFILE_SECONDS = 300;

/** What the profiler routes need. */
export interface ProfilerOptions {
  /** Whether the profiler is on now; asked on every request. */
  enabled(): Promise<boolean>;
  clock: Clock;
  /** The command line `cmdline` answers with. */
  argv: readonly string[];
  /** Whether `heapsnapshot` serves full heap snapshots, secrets included (default false). */
  heapSnapshot?: boolean;
}

const INDEX = [
  "/debug/pprof/",
  "",
  "Profiles (V8's formats, for Chrome DevTools):",
  `  heap          a sampling heap profile of ?seconds=N (default ${DEFAULT_PROFILE_SECONDS}): allocation sites and sizes, no values (.heapprofile)`,
  "  heapsnapshot  a full heap snapshot, secrets included, only with --profiler-heap-snapshot (.heapsnapshot)",
  `  profile       a CPU profile of ?seconds=N (default ${DEFAULT_PROFILE_SECONDS}, at most ${MAX_PROFILE_SECONDS}) (.cpuprofile)`,
  "  cmdline       the command line, NUL-separated",
  "",
].join("\n");

/** Argo CD's gate: on while `file` exists and holds exactly `true`. */
export function profilerGate(file: string): () => Promise<boolean> {
  return () =>
    readFile(file, "utf8").then(
      (text) => text === "true",
      () => false,
    );
}

/** The seconds of a timed profile request: Go's rule (unparsable or ≤ 0 is the default), or an error above the cap. */
export function profileSeconds(text: string | null): { ok: true; seconds: number } | { ok: false; message: string } {
  const n = text !== null && /^[+-]?\d+$/.test(text) ? Number(text) : Number.NaN;
  const seconds = Number.isFinite(n) && n > 0 ? n : DEFAULT_PROFILE_SECONDS;
  if (seconds > MAX_PROFILE_SECONDS)
    return { ok: false, message: `profile duration exceeds the longest of ${MAX_PROFILE_SECONDS} seconds` };
  return { ok: true, seconds };
}

/** A profile taken over some seconds through the inspector: how it starts and stops, and its file name. */
interface TimedProfile {
  readonly file: string;
  start(session: Session): Promise<void>;
  stop(session: Session): Promise<unknown>;
}

const CPU: TimedProfile = {
  file: "cpu.cpuprofile",
  async start(session) {
    await session.post("Profiler.enable");
    await session.post("Profiler.start");
  },
  stop: async (session) => (await session.post("Profiler.stop")).profile,
};

const HEAP_SAMPLING: TimedProfile = {
  file: "heap.heapprofile",
  async start(session) {
    await session.post("HeapProfiler.enable");
    await session.post("HeapProfiler.startSampling");
  },
  stop: async (session) => (await session.post("HeapProfiler.stopSampling")).profile,
};

/** The `/debug/pprof/` handler (a prefix route). */
export function profilerHandler(options: ProfilerOptions): Handler {
  return async (_req, res, url) => {
    if (!(await options.enabled())) return sendText(res, 401, PROFILER_DISABLED);
    const name = url.pathname.slice("/debug/pprof/".length);
    if (name === "") return sendText(res, 200, INDEX);
    if (name === "cmdline") return sendText(res, 200, options.argv.join("\0"));
    const seconds = (): ReturnType<typeof profileSeconds> => profileSeconds(url.searchParams.get("seconds"));
    if (name === "heap") return sendTimedProfile(res, HEAP_SAMPLING, { clock: options.clock, seconds: seconds() });
    if (name === "heapsnapshot") return options.heapSnapshot === true ? sendHeapSnapshot(res) : sendText(res, 403, HEAP_SNAPSHOT_DISABLED);
    if (name === "profile") return sendTimedProfile(res, CPU, { clock: options.clock, seconds: seconds() });
    res.setHeader("X-Go-Pprof", "1");
    return sendText(res, 404, "Unknown profile\n");
  };
}

function attachment(res: ServerResponse, file: string): void {
  res.writeHead(200, { "Content-Type": "application/octet-stream", "Content-Disposition": `attachment; filename="${file}"` });
}

async function sendHeapSnapshot(res: ServerResponse): Promise<void> {
  attachment(res, "heap.heapsnapshot");
  await pipeline(getHeapSnapshot(), res);
}

async function sendTimedProfile(
  res: ServerResponse,
  profile: TimedProfile,
  o: { clock: Clock; seconds: ReturnType<typeof profileSeconds> },
): Promise<void> {
  if (!o.seconds.ok) return sendText(res, 400, `${o.seconds.message}\n`);
  const gone = new AbortController();
  res.once("close", () => gone.abort());
  // node:inspector loads Node's own fetch library (for its network inspection): only when profiling.
  const { Session } = await import("node:inspector/promises");
  const session = new Session();
  session.connect();
  try {
    await profile.start(session);
    await o.clock.sleep(o.seconds.seconds * 1000, gone.signal).catch(() => undefined);
    const result = await profile.stop(session);
    if (gone.signal.aborted) return;
    attachment(res, profile.file);
    res.end(JSON.stringify(result));
  } finally {
    session.disconnect();
  }
}
