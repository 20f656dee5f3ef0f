/**
 * `appset sync APP` (docs/cli.md): asks the sync engine to sync an Application now by writing a
 * sync operation onto it, as `argocd app sync` does, and waits for it unless `--async`. Flags come
 * from app-flags.ts, the operation from app-sync.ts (pure), the cluster I/O from app-cluster.ts.
 * Exit codes: 0 the operation succeeded (or, with `--async`, was written), 1 it failed, a failure
 * or a timeout, 2 a usage error.
 */
import { parseArgs } from "node:util";
import { SystemClock } from "../clock/index.js";
import { errorMessage } from "../errors.js";
import { DEFAULT_SYNC_TIMEOUT, APP_COMMANDS } from "./app-flags.js";
import { requestSync, waitOperation } from "./app-cluster.js";
import { parseResource, requestProblem, syncExitCode, syncOperation, type SyncRequest } from "./app-sync.js";
import { AppSetCommandError } from "./appset-cluster.js";
import { isUsage, timeoutMs, UsageError } from "./appset-commands.js";
import { commandSpec, commandUsage, parseArgsOptions } from "./appset-flags.js";
import { whoAmI } from "./rollout-cluster.js";
import { kubeconfigAccess, type KubeAccess, type KubeFlags, type RolloutIO } from "./rollout-commands.js";

/** The user name of an operation when the cluster does not say who the caller is. */
export const CLI_USER = "appset-cli";

interface SyncFlags {
  readonly name: string;
  readonly namespace?: string;
  readonly request: SyncRequest;
  readonly async: boolean;
  readonly timeout: string;
  readonly kube: KubeFlags;
}

const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);
const strs = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : []);

function resourcesOf(values: readonly string[]): SyncRequest["resources"] {
  return values.map((text) => {
    const r = parseResource(text);
    if (r === undefined) throw new UsageError(`--resource "${text}" is not GROUP:KIND:NAME (or GROUP:KIND:NAMESPACE/NAME)`);
    return r;
  });
}

/** The flags, or undefined for `--help`. */
function parseSyncFlags(args: readonly string[]): SyncFlags | undefined {
  const spec = commandSpec("sync", APP_COMMANDS);
  const { values, positionals } = parseArgs({ args: [...args], options: parseArgsOptions(spec), allowPositionals: true, strict: true });
  const v = values as Record<string, unknown>;
  if (v["help"] === true) return undefined;
  if (positionals.length !== 1) throw new UsageError("appset sync takes one Application name");
  if (v["async"] === true && str(v["timeout"]) !== undefined) throw new UsageError("--timeout and --async exclude each other");
  const [revision, namespace, kubeconfig, context] = [str(v["revision"]), str(v["namespace"]), str(v["kubeconfig"]), str(v["context"])];
  const options = strs(v["sync-option"]);
  return {
    name: positionals[0]!,
    ...(namespace === undefined ? {} : { namespace }),
    request: {
      ...(revision === undefined ? {} : { revision }),
      prune: v["prune"] === true,
      dryRun: v["dry-run"] === true,
      force: v["force"] === true,
      resources: resourcesOf(strs(v["resource"])),
      ...(options.length === 0 ? {} : { syncOptions: options }),
    },
    async: v["async"] === true,
    timeout: str(v["timeout"]) ?? DEFAULT_SYNC_TIMEOUT,
    kube: { ...(kubeconfig === undefined ? {} : { kubeconfig }), ...(context === undefined ? {} : { context }) },
  };
}

async function sync(f: SyncFlags, io: RolloutIO, kube: KubeAccess): Promise<number> {
  const namespace = f.namespace ?? kube.contextNamespace ?? "argocd";
  const waitMs = f.async ? 0 : timeoutMs(f.timeout);
  const username = await whoAmI(kube.client, kube.contextUser || CLI_USER);
  await requestSync(kube.client, namespace, f.name, (app) => {
    const problem = requestProblem(app, f.request);
    if (problem !== undefined) throw new AppSetCommandError(problem);
    return syncOperation(app, f.request, username);
  });
  io.out(`Asked the sync engine to sync application ${f.name} (namespace ${namespace})${f.request.dryRun ? " as a dry run" : ""}\n`);
  if (f.async) return 0;
  const done = await waitOperation(kube.client, namespace, f.name, { clock: io.clock ?? new SystemClock(), timeoutMs: waitMs });
  if (done === undefined) {
    io.err(
      `appset sync: timed out after ${f.timeout}: the operation of application ${f.name} has not finished (is the sync engine running, and does it sync namespace ${namespace}?)\n`,
    );
    return 1;
  }
  io.out(`Operation:  Sync\nPhase:      ${done.phase}\nMessage:    ${done.message}\n`);
  return syncExitCode(done.phase);
}

/** Runs `appset sync ARGS`; resolves to the exit code. */
export async function syncCommand(args: readonly string[], io: RolloutIO): Promise<number> {
  const usage = commandUsage(commandSpec("sync", APP_COMMANDS));
  let kube: KubeAccess | undefined;
  try {
    const f = parseSyncFlags(args);
    if (f === undefined) {
      io.out(usage);
      return 0;
    }
    if (!f.async) timeoutMs(f.timeout);
    kube = io.kube === undefined ? kubeconfigAccess(f.kube, io.env, "appset-cli") : io.kube(f.kube);
    return await sync(f, io, kube);
  } catch (err) {
    io.err(isUsage(err) ? `appset sync: ${errorMessage(err)}\n\n${usage}` : `appset sync: ${errorMessage(err)}\n`);
    return isUsage(err) ? 2 : 1;
  } finally {
    await kube?.close();
  }
}
