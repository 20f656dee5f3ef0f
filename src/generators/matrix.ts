/**
 * Matrix generator (docs/generators.md#matrix): the cartesian product of exactly two children,
 * first child outer. The second child runs once per parameter set of the first, interpolated with
 * it. goTemplate mode deep-merges each pair with the first child winning; fasttemplate mode joins
 * string maps and fails on a key with two different values. Children may themselves be matrix or
 * merge generators, down to the configured nesting cap.
 */
import type { MatrixGenerator } from "../api/index.js";
import { BudgetMessage, GeneratorError, GeneratorMessage, GeneratorWrap, wrapError } from "./errors.js";
import { combineStringMaps, deepMergeOverride } from "./params.js";
import type { GeneratorRegistry } from "./registry.js";
import { childParams, entryRequeueAfterMs } from "./transform.js";
import { templateMode, type Generator, type ParamSet } from "./types.js";

function combine(a: ParamSet, b: ParamSet, goTemplate: boolean): ParamSet {
  if (goTemplate) return deepMergeOverride(deepMergeOverride({}, b), a);
  try {
    return combineStringMaps(a, b);
  } catch (err) {
    throw wrapError(GeneratorWrap.MatrixCombine, err);
  }
}

/** Minimum non-zero requeue over children (ms), 0 when none. */
export function childrenRequeueAfterMs(
  children: readonly Record<string, unknown>[],
  registry: GeneratorRegistry,
  settings: Parameters<Generator<unknown>["requeueAfterMs"]>[1],
): number {
  let min = 0;
  for (const c of children) {
    const ms = entryRequeueAfterMs(c, { settings, depth: 1 }, registry);
    if (ms > 0 && (min === 0 || ms < min)) min = ms;
  }
  return min;
}

/** Builds the Matrix generator over a registry (for its children). */
export function matrixGenerator(registry: () => GeneratorRegistry): Generator<MatrixGenerator> {
  return {
    async generate(spec, appSet, ctx) {
      const [first, second] = spec.generators;
      if (first === undefined || second === undefined) throw new GeneratorError(GeneratorMessage.MatrixLessThanTwo);
      if (spec.generators.length > 2) throw new GeneratorError(GeneratorMessage.MatrixMoreThanTwo);
      const goTemplate = templateMode(appSet).goTemplate;
      let left: ParamSet[];
      try {
        left = await childParams(first, appSet, ctx, { registry: registry() });
      } catch (err) {
        throw wrapError(GeneratorWrap.MatrixFirst, err);
      }
      const out: ParamSet[] = [];
      for (const a of left) {
        let right: ParamSet[];
        try {
          right = await childParams(second, appSet, ctx, { registry: registry(), interpolateWith: a });
        } catch (err) {
          throw wrapError(GeneratorWrap.MatrixSecond, err);
        }
        if (out.length + right.length > ctx.settings.maxParameterSets)
          throw new GeneratorError(BudgetMessage.tooManyParameterSets(ctx.settings.maxParameterSets));
        for (const b of right) out.push(combine(a, b, goTemplate));
      }
      return out;
    },
    requeueAfterMs: (spec, settings) => childrenRequeueAfterMs(spec.generators, registry(), settings),
    template: (spec) => spec.template,
  };
}
