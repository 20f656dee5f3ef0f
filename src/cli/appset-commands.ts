/**
 * `appset list`, `appset get NAME` and `appset refresh NAME` (docs/cli.md): reading the
 * ApplicationSets of a cluster and asking the controller to reconcile one now. Flags come from
 * appset-flags.ts, the client from the user's kubeconfig (or the injected `kube`), rendering is pure
 * (appset-view.ts) and the cluster I/O is in appset-cluster.ts. Exit codes: 0 done, 1 a failure (not
 * found, an API error, `refresh --wait` timed out), 2 a usage error.
 */
import { parseArgs } from "node:util";
import { isRecord } from "../api/index.js";
import { GoDurationError, parseGoDuration, SystemClock } from "../clock/index.js";
import { errorMessage } from "../errors.js";
import { yaml } from "../yaml.js";
import { getAppSetWithApps, listAppSets, requestRefresh, waitRefreshed, type AppSetClient } from "./appset-cluster.js";
import { commandSpec, commandUsage, DEFAULT_REFRESH_TIMEOUT, parseArgsOptions, type CommandSpec } from "./appset-flags.js";
import { appRows, appSetRows, ownedBy, renderAppSetGet, renderAppSetList } from "./appset-view.js";
import { kubeconfigAccess, type KubeAccess, type KubeFlags, type RolloutIO } from "./rollout-commands.js";

/** The commands of this module. */
export const APPSET_COMMAND_NAMES = ["list", "get", "refresh"] as const;
export type AppSetCommandName = (typeof APPSET_COMMAND_NAMES)[number];

/** A usage error: exit 2 with the command's usage. */
export class UsageError extends Error {}

export const isUsage = (err: unknown): boolean =>
  err instanceof UsageError || (isRecord(err) && typeof err["code"] === "string" && err["code"].startsWith("ERR_PARSE_ARGS"));

interface Flags {
  readonly name: string;
  readonly namespace?: string;
  readonly allNamespaces: boolean;
  readonly output: string;
  readonly wait: boolean;
  readonly timeoutMs: number;
  readonly timeout: string;
  readonly kube: KubeFlags;
  readonly help: boolean;
}

const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);

/** Only the flags given: `exactOptionalPropertyTypes` keeps absent ones absent. */
function given<K extends string>(v: Record<string, unknown>, keys: readonly K[]): Partial<Record<K, string>> {
  return Object.fromEntries(keys.flatMap((k) => (str(v[k]) === undefined ? [] : [[k, str(v[k])!]]))) as Partial<Record<K, string>>;
}

/** Refuses what the flags may not say together, or to this command. */
function checkFlags(spec: CommandSpec, f: Flags, positionals: readonly string[], timeoutGiven: boolean): void {
  const wanted = spec.args === "" ? 0 : 1;
  if (positionals.length !== wanted)
    throw new UsageError(wanted === 0 ? `appset ${spec.name} takes no argument` : `appset ${spec.name} takes one ApplicationSet name`);
  const formats = spec.flags.find((flag) => flag.name === "output")?.values ?? [];
  if (f.output !== "" && !formats.includes(f.output)) throw new UsageError(`unknown output format "${f.output}"`);
  if (f.allNamespaces && f.namespace !== undefined) throw new UsageError("--all-namespaces and --namespace exclude each other");
  if (timeoutGiven && !f.wait) throw new UsageError("--timeout is a flag of --wait");
}

function parseFlags(spec: CommandSpec, args: readonly string[]): Flags {
  const { values, positionals } = parseArgs({ args: [...args], options: parseArgsOptions(spec), allowPositionals: true, strict: true });
  const v = values as Record<string, unknown>;
  const s = given(v, ["output", "timeout", "kubeconfig", "context", "namespace"] as const);
  const flags: Flags = {
    name: positionals[0] ?? "",
    ...(s.namespace === undefined ? {} : { namespace: s.namespace }),
    allNamespaces: v["all-namespaces"] === true,
    output: s.output ?? "",
    wait: v["wait"] === true,
    timeout: s.timeout ?? DEFAULT_REFRESH_TIMEOUT,
    timeoutMs: 0,
    kube: {
      ...(s.kubeconfig === undefined ? {} : { kubeconfig: s.kubeconfig }),
      ...(s.context === undefined ? {} : { context: s.context }),
    },
    help: v["help"] === true,
  };
  if (flags.help) return flags;
  checkFlags(spec, flags, positionals, s.timeout !== undefined);
  return { ...flags, timeoutMs: flags.wait ? timeoutMs(flags.timeout) : 0 };
}

/** A `--timeout` in milliseconds; a usage error unless it is a positive Go duration. */
export function timeoutMs(text: string): number {
  try {
    const ms = Number(parseGoDuration(text) / 1_000_000n);
    if (ms <= 0) throw new UsageError(`--timeout must be positive, not "${text}"`);
    return ms;
  } catch (err) {
    if (err instanceof GoDurationError) throw new UsageError(`--timeout: ${err.message}`);
    throw err;
  }
}

const lines = (ls: readonly string[]): string => `${ls.join("\n")}\n`;

function serialized(value: unknown, format: string): string {
  return format === "json" ? `${JSON.stringify(value, null, 2)}\n` : yaml().stringify(value, { lineWidth: 0 });
}

const namespaceOf = (f: Flags, kube: KubeAccess): string => f.namespace ?? kube.contextNamespace ?? "argocd";

async function list(f: Flags, io: RolloutIO, client: AppSetClient, namespace: string | undefined): Promise<number> {
  const { appSets, apps } = await listAppSets(client, namespace);
  for (const name of appSets.unreadable) io.err(`appset list: warning: ApplicationSet ${name} does not match the schema; left out\n`);
  if (f.output === "json" || f.output === "yaml") {
    io.out(serialized({ apiVersion: "v1", kind: "List", items: appSets.items }, f.output));
    return 0;
  }
  const rows = appSetRows(appSets.items, apps.items);
  if (f.output === "name") {
    io.out(rows.map((r) => `${f.allNamespaces ? `${r.namespace}/` : ""}${r.name}\n`).join(""));
    return 0;
  }
  if (rows.length === 0) {
    io.err(f.allNamespaces ? "No ApplicationSets found.\n" : `No ApplicationSets found in namespace ${namespace ?? ""}.\n`);
    return 0;
  }
  io.out(lines(renderAppSetList(rows, { wide: f.output === "wide", allNamespaces: f.allNamespaces })));
  return 0;
}

async function get(f: Flags, io: RolloutIO, client: AppSetClient, namespace: string): Promise<number> {
  const { appSet, apps } = await getAppSetWithApps(client, namespace, f.name);
  if (f.output === "json" || f.output === "yaml") {
    io.out(serialized(appSet, f.output));
    return 0;
  }
  io.out(lines(renderAppSetGet(appSet, appRows(appSet, ownedBy(appSet, apps)), { wide: f.output === "wide" })));
  return 0;
}

async function refresh(f: Flags, io: RolloutIO, client: AppSetClient, namespace: string): Promise<number> {
  await requestRefresh(client, namespace, f.name);
  io.out(`Asked the controller to refresh ApplicationSet ${f.name} (namespace ${namespace})\n`);
  if (!f.wait) return 0;
  const done = await waitRefreshed(client, namespace, f.name, { clock: io.clock ?? new SystemClock(), timeoutMs: f.timeoutMs });
  if (done) {
    io.out(`ApplicationSet ${f.name} was reconciled\n`);
    return 0;
  }
  io.err(
    `appset refresh: timed out after ${f.timeout}: the controller has not reconciled ApplicationSet ${f.name} (is it running, and does it watch namespace ${namespace}?)\n`,
  );
  return 1;
}

/** Runs `appset list|get|refresh ARGS`; resolves to the exit code. */
export async function appSetCommand(command: AppSetCommandName, args: readonly string[], io: RolloutIO): Promise<number> {
  const spec = commandSpec(command);
  const usage = commandUsage(spec);
  let kube: KubeAccess | undefined;
  try {
    const f = parseFlags(spec, args);
    if (f.help) {
      io.out(usage);
      return 0;
    }
    kube = io.kube === undefined ? kubeconfigAccess(f.kube, io.env, "appset-cli") : io.kube(f.kube);
    const client = kube.client;
    if (command === "list") return await list(f, io, client, f.allNamespaces ? undefined : namespaceOf(f, kube));
    if (command === "get") return await get(f, io, client, namespaceOf(f, kube));
    return await refresh(f, io, client, namespaceOf(f, kube));
  } catch (err) {
    io.err(isUsage(err) ? `appset ${command}: ${errorMessage(err)}\n\n${usage}` : `appset ${command}: ${errorMessage(err)}\n`);
    return isUsage(err) ? 2 : 1;
  } finally {
    await kube?.close();
  }
}
