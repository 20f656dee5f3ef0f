/**
 * Merge generator (docs/generators.md#merge): the first child's parameter sets, each overridden by
 * the sets of later children that agree with it on every merge key. Sets are keyed by the JSON of
 * their merge-key values (top-level keys only); a child with two sets on one key is an error.
 * goTemplate mode deep-merges the override; fasttemplate mode copies string keys over.
 */
import type { MergeGenerator } from "../api/index.js";
import { GeneratorError, GeneratorMessage, GeneratorWrap, wrapError } from "./errors.js";
import { childrenRequeueAfterMs } from "./matrix.js";
import { combineStringMapsAllowDuplicates, deepMergeOverride } from "./params.js";
import type { GeneratorRegistry } from "./registry.js";
import { childParams } from "./transform.js";
import { templateMode, type Generator, type ParamSet } from "./types.js";

/** Go's json.Marshal of `{key: value}` for the merge keys (sorted keys, absent = null). */
export function mergeKeyOf(params: ParamSet, keys: readonly string[]): string {
  const sorted = [...new Set(keys)].sort();
  const parts = sorted.map((k) => `${JSON.stringify(k)}:${JSON.stringify(params[k] ?? null)}`);
  return `{${parts.join(",")}}`;
}

/** Indexes parameter sets by merge key; a repeated key is an error. */
export function indexByMergeKey(params: readonly ParamSet[], keys: readonly string[]): Map<string, ParamSet> {
  if (keys.length === 0) throw new GeneratorError(`${GeneratorWrap.MergeByKey}: ${GeneratorMessage.NoMergeKeys}`);
  const index = new Map<string, ParamSet>();
  for (const p of params) {
    const key = mergeKeyOf(p, keys);
    if (index.has(key))
      throw new GeneratorError(`${GeneratorWrap.MergeByKey}: ${GeneratorMessage.NonUniqueParamSets}. Duplicate key was ${key}`);
    index.set(key, p);
  }
  return index;
}

/** Builds the Merge generator over a registry (for its children). */
export function mergeGenerator(registry: () => GeneratorRegistry): Generator<MergeGenerator> {
  return {
    async generate(spec, appSet, ctx) {
      if (spec.generators.length < 2) throw new GeneratorError(GeneratorMessage.MergeLessThanTwo);
      const all: ParamSet[][] = [];
      for (const [i, child] of spec.generators.entries()) {
        try {
          all.push(await childParams(child, appSet, ctx, { registry: registry() }));
        } catch (err) {
          const inner = wrapError(`error getting params from generator ${String(i + 1)} of ${String(spec.generators.length)}`, err);
          throw wrapError(GeneratorWrap.MergeChildren, inner);
        }
      }
      const goTemplate = templateMode(appSet).goTemplate;
      const base = indexByMergeKey(all[0]!, spec.mergeKeys);
      for (const sets of all.slice(1)) {
        const overrides = indexByMergeKey(sets, spec.mergeKeys);
        for (const [key, b] of base) {
          const o = overrides.get(key);
          if (o !== undefined) base.set(key, goTemplate ? deepMergeOverride(b, o) : combineStringMapsAllowDuplicates(b, o));
        }
      }
      return [...base.values()];
    },
    requeueAfterMs: (spec, settings) => childrenRequeueAfterMs(spec.generators, registry(), settings),
    template: (spec) => spec.template,
  };
}
