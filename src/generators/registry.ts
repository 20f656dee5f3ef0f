/**
 * The generator registry: one entry per generator kind, keyed by the spec's discriminant (the key
 * of a generator entry). No reflection: a kind without an entry does not compile. Matrix and merge
 * receive the registry so their children run through the same table.
 */
import type {
  ClusterDecisionResourceGenerator,
  ClusterGenerator,
  GeneratorKind,
  GitGenerator,
  ListGenerator,
  MatrixGenerator,
  MergeGenerator,
  OciGenerator,
  PluginGenerator,
  PullRequestGenerator,
  ScmProviderGenerator,
} from "../api/index.js";
import { clusterDecisionResourceGenerator } from "./cluster-decision-resource.js";
import { clusterGenerator } from "./cluster.js";
import { gitGenerator } from "./git.js";
import { listGenerator } from "./list.js";
import { matrixGenerator } from "./matrix.js";
import { mergeGenerator } from "./merge.js";
import { ociGenerator } from "./oci.js";
import { pluginGenerator } from "./plugin.js";
import { createPullRequestGenerator } from "./pull-request.js";
import { createScmProviderGenerator } from "./scm-provider.js";
import { ScmServices } from "../scm/services.js";
import type { Generator } from "./types.js";

/** The spec type of each generator kind. */
export interface GeneratorSpecs {
  list: ListGenerator;
  clusters: ClusterGenerator;
  git: GitGenerator;
  scmProvider: ScmProviderGenerator;
  clusterDecisionResource: ClusterDecisionResourceGenerator;
  pullRequest: PullRequestGenerator;
  matrix: MatrixGenerator;
  merge: MergeGenerator;
  plugin: PluginGenerator;
  oci: OciGenerator;
}

/** One generator per kind. */
export type GeneratorRegistry = { readonly [K in GeneratorKind]: Generator<GeneratorSpecs[K]> };

/**
 * Builds the registry. `overrides` replaces individual kinds (test doubles, or SCM Provider and
 * Pull Request generators over configured {@link ScmServices}). By default both share one
 * ScmServices with Argo CD's default settings, so their HTTP cache lives as long as the registry.
 */
export function createGeneratorRegistry(
  overrides: Partial<GeneratorRegistry> = {},
  scm: ScmServices = new ScmServices(),
): GeneratorRegistry {
  const registry: GeneratorRegistry = {
    list: listGenerator,
    clusters: clusterGenerator,
    git: gitGenerator,
    scmProvider: createScmProviderGenerator(scm),
    clusterDecisionResource: clusterDecisionResourceGenerator,
    pullRequest: createPullRequestGenerator(scm),
    matrix: matrixGenerator(() => registry),
    merge: mergeGenerator(() => registry),
    plugin: pluginGenerator,
    oci: ociGenerator,
    ...overrides,
  };
  return registry;
}
