/**
 * The cluster side of `appset rollout status|history|pause|...`: reading the RolloutRuns of an
 * ApplicationSet (paged, with a cap), watching the newest until it ends or time runs out, reading
 * the caller's identity, and appending a control request with a resourceVersion guard, re-read and
 * retried on a conflict. Every wait is bounded by the injected clock; deciding is left to the pure
 * modules beside this one.
 */
import { ROLLOUT_APPSET_LABEL } from "../api/rollout-constants.js";
import { parseRolloutPolicy } from "../api/rollout-policy.js";
import { parseRolloutRun, type RolloutRun } from "../api/rollout-run.js";
import type { Clock } from "../clock/index.js";
import { AppSetError } from "../errors.js";
import {
  isConflict,
  isInvalid,
  isNotFound,
  isForbidden,
  resources,
  type KubeObject,
  type KubeReader,
  type KubeWriter,
  type ResourceDescriptor,
  type WatchEvent,
  type WatchOptions,
} from "../kube/index.js";
import { policyRules, soakByStep } from "./rollout-policy.js";
import { refusal, requestPatch, runRequest, type RequestInput } from "./rollout-request.js";
import { isFinished, newestRun } from "./rollout-runs.js";

/** authentication.k8s.io/v1 SelfSubjectReview: who the apiserver takes the caller for. */
export const SelfSubjectReviews: ResourceDescriptor = {
  group: "authentication.k8s.io",
  version: "v1",
  plural: "selfsubjectreviews",
  kind: "SelfSubjectReview",
  namespaced: false,
};

/** What the commands need of a Kubernetes client (KubeApiClient has it all). */
export interface RolloutClient extends KubeReader, Pick<KubeWriter, "create" | "patch"> {
  watch(resource: ResourceDescriptor, options: WatchOptions, onEvent: (event: WatchEvent) => void): Promise<void>;
}

/** The ApplicationSet whose runs are read. */
export interface RunsOf {
  readonly namespace: string;
  readonly applicationSet: string;
}

/** Page size of the list of runs, and how many pages are read at most. */
export const RUN_PAGE_SIZE = 100;
export const MAX_RUN_PAGES = 10;
/** How many times a request is re-read and re-sent after a concurrent write. */
export const SEND_ATTEMPTS = 5;
/** The longest one watch stream is held open before it is reopened from the last version. */
const WATCH_STREAM_SECONDS = 300;
/** Consecutive watch failures tolerated (with a growing pause) before the command gives up. */
const MAX_WATCH_FAILURES = 5;

/** A command failure whose message is meant for the person: exit 3. */
export class RolloutCommandError extends AppSetError {
  constructor(message: string) {
    super("RolloutCommand", message);
  }
}

const selector = (w: RunsOf): string => `${ROLLOUT_APPSET_LABEL}=${w.applicationSet}`;

function parsedRuns(items: readonly KubeObject[]): RolloutRun[] {
  const runs: RolloutRun[] = [];
  for (const item of items) {
    const res = parseRolloutRun(item);
    if (res.ok) runs.push(res.value);
  }
  return runs;
}

/** Every run of the ApplicationSet (at most MAX_RUN_PAGES pages), and the list's resourceVersion. */
export async function listRuns(
  client: RolloutClient,
  w: RunsOf,
  signal?: AbortSignal,
): Promise<{ runs: RolloutRun[]; resourceVersion: string }> {
  const items: KubeObject[] = [];
  let next: string | undefined;
  let resourceVersion = "";
  for (let page = 0; page < MAX_RUN_PAGES; page++) {
    const list = await client.list(resources.RolloutRuns, {
      namespace: w.namespace,
      labelSelector: selector(w),
      limit: RUN_PAGE_SIZE,
      ...(next === undefined ? {} : { continue: next }),
      ...(signal === undefined ? {} : { signal }),
    });
    items.push(...list.items);
    resourceVersion = list.resourceVersion;
    next = list.continue;
    if (next === undefined) break;
  }
  return { runs: parsedRuns(items), resourceVersion };
}

/** The newest run and every run, or a {@link RolloutCommandError} saying there is none. */
export async function runsOrFail(client: RolloutClient, w: RunsOf): Promise<{ newest: RolloutRun; runs: RolloutRun[] }> {
  const { runs } = await listRuns(client, w);
  const newest = newestRun(runs);
  if (newest === undefined) throw noRun(w);
  return { newest, runs };
}

/** The newest run, or a {@link RolloutCommandError} saying there is none. */
export async function newestOrFail(client: RolloutClient, w: RunsOf): Promise<RolloutRun> {
  return (await runsOrFail(client, w)).newest;
}

/** The error of an ApplicationSet without runs. */
export function noRun(w: RunsOf): RolloutCommandError {
  return new RolloutCommandError(
    `no RolloutRun of ApplicationSet ${w.applicationSet} in namespace ${w.namespace} (label ${selector(w)}): no rollout under a RolloutPolicy has started`,
  );
}

/**
 * The soak of each step under the run's policy, for "soak ends in"; empty when the run names no
 * policy or it cannot be read (it may be gone, or the caller may not read policies).
 */
export async function runSoaks(client: RolloutClient, run: RolloutRun): Promise<Map<number, number>> {
  const name = run.spec.policy;
  if (name === undefined || name === "") return new Map();
  try {
    const res = parseRolloutPolicy(await client.get(resources.RolloutPolicies, { namespace: run.metadata.namespace, name }));
    return res.ok ? soakByStep(policyRules(res.value), run.status?.steps?.length ?? 0) : new Map();
  } catch (err) {
    if (isNotFound(err) || isForbidden(err) || err instanceof AppSetError) return new Map();
    throw err;
  }
}

/** The caller's user name as the apiserver authenticates it, else `fallback` (the kubeconfig's user). */
export async function whoAmI(client: RolloutClient, fallback: string): Promise<string> {
  try {
    const review: KubeObject = await client.create(SelfSubjectReviews, {
      apiVersion: "authentication.k8s.io/v1",
      kind: "SelfSubjectReview",
    });
    const user = (review["status"] as { userInfo?: { username?: unknown } } | undefined)?.userInfo?.username;
    return typeof user === "string" && user !== "" ? user : fallback;
  } catch {
    return fallback;
  }
}

/** What {@link sendRequest} did. */
export interface SentRequest {
  readonly run: string;
  readonly request: ReturnType<typeof runRequest>;
  /** 0-based position of the request in `spec.requests`. */
  readonly index: number;
  readonly attempts: number;
}

/**
 * Appends `input` to the newest run's `spec.requests`. A conflict (409), or a 422 after which the
 * run's resourceVersion moved (the guard's test failed because someone else wrote), re-reads the
 * run and tries again, up to {@link SEND_ATTEMPTS} times; a refusal (finished run, full list)
 * is a {@link RolloutCommandError}.
 */
export async function sendRequest(client: RolloutClient, w: RunsOf, input: RequestInput): Promise<SentRequest> {
  let run = await newestOrFail(client, w);
  const request = runRequest(input);
  const key = { namespace: w.namespace, name: run.metadata.name ?? "" };
  for (let attempt = 1; ; attempt++) {
    const why = refusal(run);
    if (why !== undefined) throw new RolloutCommandError(why);
    try {
      await client.patch(resources.RolloutRuns, key, { type: "json", ops: requestPatch(run, request) });
      return { run: key.name, request, index: run.spec.requests?.length ?? 0, attempts: attempt };
    } catch (err) {
      if (!(isConflict(err) || isInvalid(err))) throw err;
      const fresh = parseRolloutRun(await client.get(resources.RolloutRuns, key));
      if (!fresh.ok) throw fresh.error;
      const moved = fresh.value.metadata.resourceVersion !== run.metadata.resourceVersion;
      if (!moved || attempt >= SEND_ATTEMPTS) throw err;
      run = fresh.value;
    }
  }
}

/** How {@link watchNewest} ended. */
export type WatchEnd = { readonly kind: "finished"; readonly run: RolloutRun } | { readonly kind: "timeout"; readonly run?: RolloutRun };

class WatchTimeout extends Error {}

interface WatchPass {
  readonly runs: Map<string, RolloutRun>;
  finished?: RolloutRun;
  gone: boolean;
}

/**
 * Follows the newest run of the ApplicationSet: `onChange` gets it (with every run known, for
 * context) now and after every change (a new newest run, or a new resourceVersion of it) until it is Completed, Halted or Aborted, or
 * `timeoutMs` passes on `clock`. A list, then a watch from the list's version; the watch is
 * reopened when the server ends it, and the list read again after a 410 or an error.
 */
export async function watchNewest(
  client: RolloutClient,
  w: RunsOf,
  how: { clock: Clock; timeoutMs: number },
  onChange: (run: RolloutRun, runs: readonly RolloutRun[]) => void,
): Promise<WatchEnd> {
  const stop = new AbortController();
  const timer = how.clock.setTimeout(() => stop.abort(new WatchTimeout("timed out")), how.timeoutMs);
  let shown: RolloutRun | undefined;
  const consider = (runs: Map<string, RolloutRun>): RolloutRun | undefined => {
    const all = [...runs.values()];
    const n = newestRun(all);
    if (n !== undefined && (n.metadata.name !== shown?.metadata.name || n.metadata.resourceVersion !== shown?.metadata.resourceVersion)) {
      shown = n;
      onChange(n, all);
    }
    return n;
  };
  try {
    for (let failures = 0; ;) {
      try {
        const end = await listAndWatch(client, w, stop.signal, consider);
        if (end !== undefined) return { kind: "finished", run: end };
        failures = 0;
      } catch (err) {
        if (stop.signal.aborted) return { kind: "timeout", ...(shown === undefined ? {} : { run: shown }) };
        if (++failures > MAX_WATCH_FAILURES) throw err;
        await how.clock.sleep(1000 * failures, stop.signal).catch(() => undefined);
      }
      if (stop.signal.aborted) return { kind: "timeout", ...(shown === undefined ? {} : { run: shown }) };
    }
  } finally {
    how.clock.clearTimeout(timer);
  }
}

/** One list and one watch stream; resolves to the finished run, or undefined to go round again. */
async function listAndWatch(
  client: RolloutClient,
  w: RunsOf,
  signal: AbortSignal,
  consider: (runs: Map<string, RolloutRun>) => RolloutRun | undefined,
): Promise<RolloutRun | undefined> {
  const listed = await listRuns(client, w, signal);
  const pass: WatchPass = { runs: new Map(listed.runs.map((r) => [r.metadata.name ?? "", r])), gone: false };
  const first = consider(pass.runs);
  if (first !== undefined && isFinished(first.status?.phase)) return first;
  const inner = new AbortController();
  const options: WatchOptions = {
    namespace: w.namespace,
    labelSelector: selector(w),
    resourceVersion: listed.resourceVersion,
    allowWatchBookmarks: true,
    timeoutSeconds: WATCH_STREAM_SECONDS,
    signal: AbortSignal.any([signal, inner.signal]),
  };
  try {
    await client.watch(resources.RolloutRuns, options, (ev) => {
      onWatchEvent(pass, ev, consider);
      if (pass.finished !== undefined || pass.gone) inner.abort();
    });
  } catch (err) {
    if (!inner.signal.aborted) throw err;
  }
  return pass.finished;
}

function onWatchEvent(pass: WatchPass, ev: WatchEvent, consider: (runs: Map<string, RolloutRun>) => RolloutRun | undefined): void {
  if (ev.type === "BOOKMARK") return;
  if (ev.type === "ERROR") {
    const code = (ev.object as { code?: unknown }).code;
    if (code === 410) {
      pass.gone = true;
      return;
    }
    throw new RolloutCommandError(`watch of RolloutRuns failed: ${JSON.stringify(ev.object).slice(0, 300)}`);
  }
  const parsed = parseRolloutRun(ev.object);
  if (!parsed.ok) return;
  const name = parsed.value.metadata.name ?? "";
  if (ev.type === "DELETED") pass.runs.delete(name);
  else pass.runs.set(name, parsed.value);
  const n = consider(pass.runs);
  if (n !== undefined && isFinished(n.status?.phase)) pass.finished = n;
}
