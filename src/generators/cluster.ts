/**
 * Cluster generator (docs/generators.md#cluster): one parameter set per Argo CD cluster Secret
 * matching the selector, de-duplicated by cluster name (last wins), plus the implicit local cluster
 * when the selector is empty and no matching Secret already points at it; or, with `flatList`, one
 * set holding them all.
 */
import { InCluster, isClusterSecret, secretValue, type ClusterGenerator, type Secret } from "../api/index.js";
import { errorMessage } from "../errors.js";
import { GeneratorError, GeneratorWrap, wrapError } from "./errors.js";
import { appendValues, normalize } from "./params.js";
import { compileSelector, isEmptySelector } from "./selector.js";
import { templateMode, type Generator, type GeneratorContext, type ParamSet, type TemplateMode } from "./types.js";

/**
 * Annotations of a cluster Secret that are not parameters: Argo CD's and kubectl's own state on the
 * Secret, and one-shot triggers, which copied into an Application would loop or leak the Secret.
 */
const EXCLUDED_ANNOTATIONS: ReadonlySet<string> = new Set([
  "argocd.argoproj.io/refresh",
  "argocd.argoproj.io/refresh-timestamp",
  "argocd.argoproj.io/hydrate",
  "argocd.argoproj.io/hydrate-timestamp",
  "argocd.argoproj.io/tracking-id",
  "argocd.argoproj.io/installation-id",
  "kubectl.kubernetes.io/last-applied-configuration",
]);

function metadataParams(secret: Secret, goTemplate: boolean): ParamSet {
  const labels = secret.metadata.labels ?? {};
  const all = secret.metadata.annotations ?? {};
  const annotations = Object.fromEntries(Object.entries(all).filter(([k]) => !EXCLUDED_ANNOTATIONS.has(k)));
  if (goTemplate) {
    const meta: Record<string, unknown> = {};
    // The key is there whenever the Secret has annotations, even if none is a parameter.
    if (Object.keys(all).length > 0) meta["annotations"] = annotations;
    if (Object.keys(labels).length > 0) meta["labels"] = { ...labels };
    return { metadata: meta };
  }
  const out: ParamSet = {};
  for (const [k, v] of Object.entries(annotations)) out[`metadata.annotations.${k}`] = v;
  for (const [k, v] of Object.entries(labels)) out[`metadata.labels.${k}`] = v;
  return out;
}

function secretParams(secret: Secret, mode: TemplateMode): ParamSet {
  const name = secretValue(secret, "name") ?? "";
  return {
    name,
    nameNormalized: normalize(name),
    server: secretValue(secret, "server") ?? "",
    project: secretValue(secret, "project") ?? "",
    ...metadataParams(secret, mode.goTemplate),
  };
}

const LOCAL_CLUSTER: ParamSet = { name: InCluster.name, nameNormalized: InCluster.name, server: InCluster.server, project: "" };

/** Lists the matching cluster Secrets, de-duplicated by `data.name` (last wins, first position kept). */
async function matchingSecrets(spec: ClusterGenerator, ctx: GeneratorContext): Promise<Secret[]> {
  const lister = ctx.ports.clusters;
  if (lister === undefined) throw new GeneratorError(`${GeneratorWrap.ClusterSecrets}: no cluster Secret source configured`);
  let matcher;
  try {
    matcher = compileSelector(spec.selector, { strictValues: true, operatorNoun: "label" });
  } catch (err) {
    throw new GeneratorError(`${GeneratorWrap.ClusterSecrets}: error converting label selector: ${errorMessage(err)}`);
  }
  let secrets: readonly Secret[];
  try {
    secrets = await lister.listClusterSecrets(ctx.signal);
  } catch (err) {
    throw wrapError(GeneratorWrap.ClusterSecrets, err);
  }
  const byName = new Map<string, Secret>();
  for (const s of secrets) {
    if (isClusterSecret(s) && matcher(s.metadata.labels ?? {})) byName.set(secretValue(s, "name") ?? "", s);
  }
  return [...byName.values()];
}

/** The Cluster generator. */
export const clusterGenerator: Generator<ClusterGenerator> = {
  async generate(spec, appSet, ctx) {
    const mode = templateMode(appSet);
    const secrets = await matchingSecrets(spec, ctx);
    const sets = secrets.map((s) => secretParams(s, mode));
    const hasLocal = secrets.some((s) => secretValue(s, "server") === InCluster.server);
    if (isEmptySelector(spec.selector) && !hasLocal) sets.push({ ...LOCAL_CLUSTER });
    const withValues = sets.map((p) => appendValues(p, spec.values, mode, ctx.renderer));
    if (spec.flatList === true) return [{ clusters: withValues.length === 0 ? null : withValues }];
    return withValues;
  },
  requeueAfterMs: () => 0,
  template: (spec) => spec.template,
};
