/**
 * `appset shards` (docs/cli.md#appset-shards, docs/sharding.md): the live members of a shard group
 * and the ApplicationSets each owns (`--applications`: the Applications, the sync engine's share),
 * from the group's member Leases and the ApplicationSets (Applications). A
 * reader that lists once has no history of when a Lease changed, so a member counts as live until
 * its `renewTime + leaseDurationSeconds` on this machine's clock (src/shard/snapshot.ts); the
 * replicas judge by when they saw the Lease change, so around a change, or with clocks apart, the
 * two may differ. Exit codes: 0 done, 1 a failure, 2 a usage error.
 */
import { parseArgs } from "node:util";
import { isRecord } from "../api/index.js";
import { SystemClock } from "../clock/index.js";
import { errorMessage } from "../errors.js";
import { objectKey, resources, type KubeObject } from "../kube/index.js";
import { Leases, type Lease } from "../leader/lease.js";
import { checkGroupName, DEFAULT_SHARD_GROUP, SHARD_GROUP_LABEL } from "../shard/index.js";
import { yaml } from "../yaml.js";
import { LIST_PAGE_SIZE, MAX_LIST_PAGES, type AppSetClient } from "./appset-cluster.js";
import { commandSpec, commandUsage, parseArgsOptions } from "./appset-flags.js";
import { kubeconfigAccess, type KubeAccess, type KubeFlags, type RolloutIO } from "./rollout-commands.js";
import { renderShards, shardsReport, type ShardedResource, type ShardsReport } from "./shards-view.js";

const SPEC = commandSpec("shards");

/** The usage, with how liveness is judged from outside the group. */
export const SHARDS_USAGE = `${commandUsage(SPEC)}
A member counts as live until its Lease's renewTime + leaseDurationSeconds, on this machine's
clock: this command reads the Leases once and has none of the history the replicas judge by (when
they saw each Lease change), so around a change, or with clocks apart, it may differ from them.
Each ApplicationSet goes to a live member by the controller's rule, keyed by namespace/name;
with --applications each Application does, by the same rule and its own namespace/name, as the
sharded sync engine shares them (appset sync-engine --enable-sharding joins the group
applicationset-sync-engine unless its --shard-group names another: give that --group here).
`;

class UsageError extends Error {}

const isUsage = (err: unknown): boolean =>
  err instanceof UsageError || (isRecord(err) && typeof err["code"] === "string" && err["code"].startsWith("ERR_PARSE_ARGS"));

interface Flags {
  namespace?: string;
  group: string;
  allNamespaces: boolean;
  /** What is assigned: the Applications with `--applications` (the sync engine's share), else the ApplicationSets. */
  resource: ShardedResource;
  output: string;
  kube: KubeFlags;
  help: boolean;
}

function parseFlags(args: readonly string[]): Flags {
  const { values, positionals } = parseArgs({ args: [...args], options: parseArgsOptions(SPEC), allowPositionals: true, strict: true });
  const v = values as Record<string, string | boolean | undefined>;
  const str = (k: string): string | undefined => (typeof v[k] === "string" ? v[k] : undefined);
  const f: Flags = {
    group: str("group") ?? DEFAULT_SHARD_GROUP,
    allNamespaces: v["all-namespaces"] === true,
    resource: v["applications"] === true ? "applications" : "applicationsets",
    output: str("output") ?? "",
    help: v["help"] === true,
    kube: Object.fromEntries((["kubeconfig", "context"] as const).flatMap((k) => (str(k) === undefined ? [] : [[k, str(k)]]))),
    ...(str("namespace") === undefined ? {} : { namespace: str("namespace")! }),
  };
  if (f.help) return f;
  if (positionals.length > 0) throw new UsageError("appset shards takes no argument");
  const formats = SPEC.flags.find((flag) => flag.name === "output")?.values ?? [];
  if (f.output !== "" && !formats.includes(f.output)) throw new UsageError(`unknown output format "${f.output}"`);
  try {
    checkGroupName(f.group);
  } catch (err) {
    throw new UsageError(errorMessage(err));
  }
  return f;
}

/** Every item of a list, paged as the other commands page. */
async function listAll<T>(
  client: AppSetClient,
  resource: Parameters<AppSetClient["list"]>[0],
  o: { namespace?: string; labelSelector?: string },
): Promise<T[]> {
  const items: T[] = [];
  let next: string | undefined;
  for (let page = 0; page < MAX_LIST_PAGES; page++) {
    const list = await client.list(resource, { ...o, limit: LIST_PAGE_SIZE, ...(next === undefined ? {} : { continue: next }) });
    items.push(...(list.items as T[]));
    next = list.continue;
    if (next === undefined) break;
  }
  return items;
}

/** The group's member Leases and the keys (`namespace/name`) of the ApplicationSets (Applications) to assign. */
async function read(client: AppSetClient, f: Flags, namespace: string): Promise<{ leases: Lease[]; keys: string[] }> {
  const [leases, objects] = await Promise.all([
    listAll<Lease>(client, Leases, { namespace, labelSelector: `${SHARD_GROUP_LABEL}=${f.group}` }),
    listAll<KubeObject>(
      client,
      f.resource === "applications" ? resources.Applications : resources.ApplicationSets,
      f.allNamespaces ? {} : { namespace },
    ),
  ]);
  return { leases, keys: objects.map(objectKey) };
}

function printed(report: ShardsReport, output: string): string {
  if (output === "json") return `${JSON.stringify(report, null, 2)}\n`;
  if (output === "yaml") return yaml().stringify(report, { lineWidth: 0 });
  return `${renderShards(report, { wide: output === "wide" }).join("\n")}\n`;
}

/** Runs `appset shards ARGS`; resolves to the exit code. */
export async function shardsCommand(args: readonly string[], io: RolloutIO): Promise<number> {
  let kube: KubeAccess | undefined;
  try {
    const f = parseFlags(args);
    if (f.help) {
      io.out(SHARDS_USAGE);
      return 0;
    }
    kube = io.kube === undefined ? kubeconfigAccess(f.kube, io.env, "appset-cli") : io.kube(f.kube);
    const namespace = f.namespace ?? kube.contextNamespace ?? "argocd";
    const { leases, keys } = await read(kube.client, f, namespace);
    const now = (io.clock ?? new SystemClock()).now();
    io.out(printed(shardsReport({ namespace, group: f.group, resource: f.resource, leases, keys, now }), f.output));
    return 0;
  } catch (err) {
    io.err(isUsage(err) ? `appset shards: ${errorMessage(err)}\n\n${SHARDS_USAGE}` : `appset shards: ${errorMessage(err)}\n`);
    return isUsage(err) ? 2 : 1;
  } finally {
    await kube?.close();
  }
}
