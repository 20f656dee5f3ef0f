/**
 * Cluster Decision Resource generator (docs/generators.md#cluster-decision-resource): reads a
 * duck-typed resource (named by a ConfigMap's `apiVersion`, `kind` = plural, `statusListKey`,
 * `matchKey`) and turns each decision in its status list that names a known Argo CD cluster into
 * `name`, `server`, every decision key, and `values` (copied verbatim, not templated).
 */
import { InCluster, isClusterSecret, isRecord, secretValue, type ClusterDecisionResourceGenerator } from "../api/index.js";
import { errorMessage } from "../errors.js";
import { GeneratorError, GeneratorMessage, wrapError } from "./errors.js";
import { formatV, requeueFrom } from "./params.js";
import { isEmptySelector } from "./selector.js";
import { templateMode, type DuckResource, type Generator, type GeneratorContext, type ParamSet } from "./types.js";

/** The ConfigMap contract of the generator. */
interface DuckConfig {
  readonly resource: DuckResource;
  readonly statusListKey: string;
  readonly matchKey: string;
}

/** Reads the ConfigMap keys; a bad apiVersion or kind is the spec's error. */
export function duckConfig(data: Readonly<Record<string, string>>): DuckConfig {
  const apiVersion = data["apiVersion"] ?? "";
  const kind = data["kind"] ?? "";
  const slash = apiVersion.indexOf("/");
  if (slash < 1 || kind === "") throw new GeneratorError(GeneratorMessage.CdrBadApiVersion);
  return {
    resource: { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1), plural: kind },
    statusListKey: data["statusListKey"] || "clusters",
    matchKey: data["matchKey"] ?? "",
  };
}

/** Known cluster names → server (cluster Secrets, then the synthetic in-cluster). */
async function clusterServers(ctx: GeneratorContext): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const secrets = ctx.ports.clusters === undefined ? [] : await ctx.ports.clusters.listClusterSecrets(ctx.signal);
  for (const s of secrets) if (isClusterSecret(s)) out.set(secretValue(s, "name") ?? "", secretValue(s, "server") ?? "");
  if (![...out.values()].includes(InCluster.server) && !out.has(InCluster.name)) out.set(InCluster.name, InCluster.server);
  return out;
}

function decisionsOf(items: readonly Record<string, unknown>[], listKey: string): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (const item of items) {
    const status = item["status"];
    if (!isRecord(status) || Object.keys(status).length === 0) continue;
    const list = status[listKey];
    if (!Array.isArray(list))
      throw new GeneratorError(`status of ${String((item["metadata"] as { name?: string } | undefined)?.name)} has no list ${listKey}`);
    for (const d of list) if (isRecord(d)) out.push(d);
  }
  return out;
}

async function listResources(
  spec: ClusterDecisionResourceGenerator,
  cfg: DuckConfig,
  ctx: GeneratorContext,
): Promise<Record<string, unknown>[]> {
  const lister = ctx.ports.resources;
  try {
    if (lister === undefined) throw new Error("no dynamic resource source configured");
    const select = spec.name ? { name: spec.name } : spec.labelSelector === undefined ? {} : { labelSelector: spec.labelSelector };
    return (await lister.list(cfg.resource, select, ctx.signal)) as Record<string, unknown>[];
  } catch (err) {
    throw wrapError("failed to get dynamic resources", err);
  }
}

async function readConfig(spec: ClusterDecisionResourceGenerator, ctx: GeneratorContext): Promise<DuckConfig> {
  let data: Readonly<Record<string, string>>;
  try {
    if (ctx.ports.configMaps === undefined) throw new Error("no ConfigMap source configured");
    data = await ctx.ports.configMaps.getConfigMapData(spec.configMapRef, ctx.signal);
  } catch (err) {
    throw new GeneratorError(`error reading configMapRef: ${errorMessage(err)}`, { cause: err });
  }
  const cfg = duckConfig(data);
  const hasName = (spec.name ?? "") !== "";
  const hasSelector = spec.labelSelector !== undefined && !isEmptySelector(spec.labelSelector);
  if (hasName === hasSelector) throw new GeneratorError(GeneratorMessage.CdrBadDefinition);
  return cfg;
}

function decisionParams(d: Record<string, unknown>, server: string, spec: ClusterDecisionResourceGenerator, goTemplate: boolean): ParamSet {
  const params: ParamSet = { server };
  for (const [k, v] of Object.entries(d)) params[k] = formatV(v);
  const values = spec.values ?? {};
  if (goTemplate) params["values"] = { ...values };
  else for (const [k, v] of Object.entries(values)) params[`values.${k}`] = v;
  return params;
}

/** The Cluster Decision Resource generator. */
export const clusterDecisionResourceGenerator: Generator<ClusterDecisionResourceGenerator> = {
  async generate(spec, appSet, ctx) {
    const cfg = await readConfig(spec, ctx);
    if (cfg.matchKey === "") return [];
    const items = await listResources(spec, cfg, ctx);
    if (items.length === 0) throw new GeneratorError(GeneratorMessage.CdrNotFound);
    const servers = await clusterServers(ctx);
    const goTemplate = templateMode(appSet).goTemplate;
    const out: ParamSet[] = [];
    for (const d of decisionsOf(items, cfg.statusListKey)) {
      const name = d[cfg.matchKey] === undefined ? "" : formatV(d[cfg.matchKey]);
      const server = servers.get(name);
      if (name !== "" && server !== undefined) out.push({ name, ...decisionParams(d, server, spec, goTemplate) });
    }
    return out;
  },
  requeueAfterMs: (spec, settings) => requeueFrom(spec.requeueAfterSeconds, settings.defaultRequeueAfterMs),
  template: (spec) => spec.template,
};
