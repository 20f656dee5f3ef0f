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
import { pluginGenerator } from "./plugin.js";
import type { Generator } from "./types.js";
import { pullRequestGenerator, scmProviderGenerator } from "./unsupported.js";

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
}

/** One generator per kind. */
export type GeneratorRegistry = { readonly [K in GeneratorKind]: Generator<GeneratorSpecs[K]> };

/**
 * Builds the registry. `overrides` replaces individual kinds (the SCM Provider and Pull Request
 * implementations plug in here, as do test doubles).
 */
export function createRegistry(overrides: Partial<GeneratorRegistry> = {}): GeneratorRegistry {
  const registry: GeneratorRegistry = {
    list: listGenerator,
    clusters: clusterGenerator,
    git: gitGenerator,
    scmProvider: scmProviderGenerator,
    clusterDecisionResource: clusterDecisionResourceGenerator,
    pullRequest: pullRequestGenerator,
    matrix: matrixGenerator(() => registry),
    merge: mergeGenerator(() => registry),
    plugin: pluginGenerator,
    ...overrides,
  };
  return registry;
}
