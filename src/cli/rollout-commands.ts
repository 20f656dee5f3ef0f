/**
 * `appset rollout status|history|pause|resume|promote|abort|approve`: the commands that read and
 * steer the RolloutRuns of an ApplicationSet on a cluster (docs/cli.md). Flags are parsed here, the
 * client comes from the user's kubeconfig (or the injected `kube`), rendering is pure
 * (rollout-status-view.ts, rollout-history-view.ts) and the cluster I/O is in rollout-cluster.ts.
 */
import { parseArgs } from "node:util";
import { RUN_ACTIONS, type RolloutRun } from "../api/rollout-run.js";
import { GoDurationError, parseGoDuration, rfc3339, SystemClock, type Clock } from "../clock/index.js";
import { kubeEnvironment, type Env } from "../config/index.js";
import { applyKubeOverrides, KubeApiClient, loadKubeConfig, type KubeConfigSource } from "../kube/index.js";
import type { GenerateIO } from "./generate.js";
import {
  listRuns,
  noRun,
  runSoaks,
  runsOrFail,
  sendRequest,
  watchNewest,
  whoAmI,
  type RolloutClient,
  type RunsOf,
} from "./rollout-cluster.js";
import { historyRows, renderHistory } from "./rollout-history-view.js";
import { heldBehind, RolloutExit, statusExit } from "./rollout-runs.js";
import { renderStatus, type StatusViewOptions } from "./rollout-status-view.js";

/** The default of --timeout. */
export const DEFAULT_WATCH_TIMEOUT = "1h";

/** The usage of the cluster commands (the `appset rollout` usage lists them). */
export const CLUSTER_FLAGS = `Flags of status, history, pause, resume, promote, abort and approve:
  -n, --namespace NS      the ApplicationSet's namespace (default: the context's, else argocd)
      --kubeconfig FILE   the kubeconfig (default: $KUBECONFIG, else ~/.kube/config)
      --context NAME      the kubeconfig context to use
  -o, --output FORMAT     status, history: text (default) or json
  -w, --watch             status: re-render on every change until the run ends or --timeout passes
      --timeout DURATION  status --watch: the longest wait, a Go duration (default ${DEFAULT_WATCH_TIMEOUT})
      --step N            approve: the step (1-based) to approve, ahead of time or now

Exit codes: 0 Completed (without --watch also Running or Paused), or the request was sent;
1 Halted or Aborted; 2 --watch timed out; 3 no run found, a request refused, a usage or API error.
`;

/** How long one API request may take. */
const REQUEST_TIMEOUT_MS = 30_000;
const CLEAR_SCREEN = "\u001b[H\u001b[2J";

/** A Kubernetes client and what the commands read of the kubeconfig. */
export interface KubeAccess {
  readonly client: RolloutClient;
  /** The user name of the kubeconfig context: `by` when the apiserver does not say who the caller is. */
  readonly contextUser: string;
  /** The namespace of the kubeconfig context, if it names one. */
  readonly contextNamespace?: string;
  close(): Promise<void>;
}

/** The kubeconfig flags. */
export interface KubeFlags {
  readonly kubeconfig?: string;
  readonly context?: string;
}

/** The process surroundings of `appset rollout`. */
export interface RolloutIO extends GenerateIO {
  /** stdout is a terminal: progress bars and a cleared screen on --watch. */
  readonly isTTY?: boolean;
  /** Default: the system clock. */
  readonly clock?: Clock;
  /** Default: a client from the kubeconfig the flags name. */
  readonly kube?: (flags: KubeFlags) => KubeAccess;
}

/** A usage error: exit 3 with the usage. */
export class RolloutUsageError extends Error {}

/** A client from the kubeconfig (`--kubeconfig`, else the default chain on `env`) and `--context`, writing as `fieldManager`. */
export function kubeconfigAccess(
  flags: KubeFlags,
  env: Env,
  fieldManager = "appset-rollout",
): KubeAccess & { readonly client: KubeApiClient } {
  const source: KubeConfigSource =
    flags.kubeconfig === undefined ? { kind: "default", env: kubeEnvironment(env) } : { kind: "file", path: flags.kubeconfig };
  const overrides = flags.context === undefined ? {} : { context: flags.context };
  const kc = applyKubeOverrides(loadKubeConfig(source), overrides);
  const context = kc.getContextObject(kc.getCurrentContext());
  const client = KubeApiClient.fromConfig(source, { overrides, fieldManager, requestTimeoutMs: REQUEST_TIMEOUT_MS });
  return {
    client,
    contextUser: context?.user ?? "",
    ...(context?.namespace ? { contextNamespace: context.namespace } : {}),
    close: () => client.transport.close(),
  };
}

/** The flags of the cluster commands of `appset rollout` (node:util parseArgs options; the shell completion lists them too). */
export const CLUSTER_OPTIONS = {
  namespace: { type: "string", short: "n" },
  kubeconfig: { type: "string" },
  context: { type: "string" },
  output: { type: "string", short: "o", default: "text" },
  watch: { type: "boolean", short: "w", default: false },
  timeout: { type: "string" },
  step: { type: "string" },
  help: { type: "boolean", short: "h", default: false },
} as const;

function parseFlags(command: string, args: readonly string[]) {
  const { values, positionals } = parseArgs({
    args: [...args],
    options: CLUSTER_OPTIONS,
    allowPositionals: true,
    strict: true,
  });
  if (values.help) return { ...values, appSet: "", timeoutMs: 0, stepNumber: undefined };
  if (positionals.length !== 1) throw new RolloutUsageError(`appset rollout ${command} takes one ApplicationSet name`);
  if (values.output !== "text" && values.output !== "json") throw new RolloutUsageError(`unknown output format "${values.output}"`);
  const onlyFor = (flag: string, ok: boolean): void => {
    if (!ok) throw new RolloutUsageError(`${flag} is not a flag of appset rollout ${command}`);
  };
  onlyFor("--watch", !values.watch || command === "status");
  onlyFor("--timeout", values.timeout === undefined || (command === "status" && values.watch));
  onlyFor("--step", values.step === undefined || command === "approve");
  return { ...values, appSet: positionals[0]!, timeoutMs: timeoutMs(values.timeout), stepNumber: stepNumber(values.step) };
}

type Flags = ReturnType<typeof parseFlags>;

function timeoutMs(text: string | undefined): number {
  try {
    const ms = Number(parseGoDuration(text ?? DEFAULT_WATCH_TIMEOUT) / 1_000_000n);
    if (ms <= 0) throw new RolloutUsageError(`--timeout must be positive, not "${text ?? ""}"`);
    return ms;
  } catch (err) {
    if (err instanceof GoDurationError) throw new RolloutUsageError(`--timeout: ${err.message}`);
    throw err;
  }
}

function stepNumber(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const n = Number(text);
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(n) || n < 1)
    throw new RolloutUsageError(`--step must be a step number (1 for the first), not "${text}"`);
  return n;
}

const runsOf = (f: Flags, kube: KubeAccess): RunsOf => ({
  namespace: f.namespace ?? kube.contextNamespace ?? "argocd",
  applicationSet: f.appSet,
});

const lines = (ls: readonly string[]): string => `${ls.join("\n")}\n`;

/** The status of the run, with the halted run it waits behind when it is Paused behind one. */
function statusLines(run: RolloutRun, all: readonly RolloutRun[], o: StatusViewOptions): string[] {
  const behind = heldBehind(run, all);
  return renderStatus(run, behind === undefined ? o : { ...o, heldBehind: behind });
}

async function status(f: Flags, io: RolloutIO, kube: KubeAccess): Promise<number> {
  const w = runsOf(f, kube);
  const clock = io.clock ?? new SystemClock();
  const { newest: first, runs } = await runsOrFail(kube.client, w);
  const soakMs = await runSoaks(kube.client, first);
  const view = (run: RolloutRun, all: readonly RolloutRun[]): string[] =>
    statusLines(run, all, { now: clock.now(), isTTY: io.isTTY === true, soakMs });
  if (!f.watch) {
    io.out(f.output === "json" ? `${JSON.stringify(first, null, 2)}\n` : lines(view(first, runs)));
    return statusExit(first.status?.phase, false);
  }
  let renders = 0;
  const show = (run: RolloutRun, all: readonly RolloutRun[]): void => {
    if (f.output === "json") io.out(`${JSON.stringify(run)}\n`);
    else if (io.isTTY === true) io.out(CLEAR_SCREEN + lines(view(run, all)));
    else io.out((renders > 0 ? `\n--- ${rfc3339(clock.now())}\n` : "") + lines(view(run, all)));
    renders++;
  };
  const end = await watchNewest(kube.client, w, { clock, timeoutMs: f.timeoutMs }, show);
  if (end.kind === "finished") return statusExit(end.run.status?.phase, true);
  if (end.run === undefined) throw noRun(w);
  io.err(
    `appset rollout status: timed out after ${f.timeout ?? DEFAULT_WATCH_TIMEOUT}: RolloutRun ${end.run.metadata.name ?? ""} is still ${end.run.status?.phase ?? "without a status"}\n`,
  );
  return RolloutExit.TimedOut;
}

async function history(f: Flags, io: RolloutIO, kube: KubeAccess): Promise<number> {
  const w = runsOf(f, kube);
  const { runs } = await listRuns(kube.client, w);
  if (runs.length === 0) throw noRun(w);
  const rows = historyRows(runs, (io.clock ?? new SystemClock()).now());
  io.out(f.output === "json" ? `${JSON.stringify(rows, null, 2)}\n` : lines(renderHistory(rows)));
  return RolloutExit.Ok;
}

async function control(action: (typeof RUN_ACTIONS)[number], f: Flags, io: RolloutIO, kube: KubeAccess): Promise<number> {
  const w = runsOf(f, kube);
  const clock = io.clock ?? new SystemClock();
  const by = await whoAmI(kube.client, kube.contextUser || "unknown");
  const sent = await sendRequest(kube.client, w, {
    action,
    ...(f.stepNumber === undefined ? {} : { step: f.stepNumber }),
    by,
    at: rfc3339(clock.now()),
  });
  io.out(
    `Sent ${action}${f.stepNumber === undefined ? "" : ` of step ${String(f.stepNumber)}`} to RolloutRun ${sent.run} (namespace ${w.namespace}) as request #${String(sent.index)}: ${JSON.stringify(sent.request)}\n` +
      `The controller applies it once; see its result with: appset rollout status ${w.applicationSet} -n ${w.namespace}\n`,
  );
  return RolloutExit.Ok;
}

/** The cluster commands `appset rollout` knows. */
export const CLUSTER_COMMANDS = ["status", "history", ...RUN_ACTIONS] as const;
export type ClusterCommand = (typeof CLUSTER_COMMANDS)[number];

/** Runs one cluster command; resolves to the exit code (the caller prints usage errors). */
export async function clusterCommand(command: ClusterCommand, args: readonly string[], io: RolloutIO, usage: string): Promise<number> {
  const f = parseFlags(command, args);
  if (f.help) {
    io.out(usage);
    return RolloutExit.Ok;
  }
  const flags: KubeFlags = {
    ...(f.kubeconfig === undefined ? {} : { kubeconfig: f.kubeconfig }),
    ...(f.context === undefined ? {} : { context: f.context }),
  };
  const kube = io.kube === undefined ? kubeconfigAccess(flags, io.env) : io.kube(flags);
  try {
    if (command === "status") return await status(f, io, kube);
    if (command === "history") return await history(f, io, kube);
    return await control(command, f, io, kube);
  } finally {
    await kube.close();
  }
}
