/**
 * The ApplicationSet-level entry point: runs every top-level generator entry in order and returns,
 * per generator kind, its parameter sets and effective template, plus the ApplicationSet's requeue
 * interval (docs/generators.md#common-to-every-generator). Any generator failure rejects the whole
 * call, so callers never act on a partial result; so do more than `maxParameterSets` parameter sets.
 */
import { mergeTemplate, type Json } from "../template/index.js";
import type { ApplicationSet, ApplicationSetTemplate, GeneratorKind } from "../api/index.js";
import { BudgetMessage, GeneratorError, unrecognizedGenerators } from "./errors.js";
import type { GeneratorRegistry } from "./registry.js";
import { entryRequeueAfterMs, kindsOf, transformEntry, unknownGeneratorKeys } from "./transform.js";
import type { GeneratorContext, GeneratorSettings, ParamSet } from "./types.js";

/** The parameter sets of one generator kind of one top-level entry, and the template they render. */
export interface GeneratedParams {
  /** Index of the entry in `spec.generators`. */
  readonly entry: number;
  readonly kind: GeneratorKind;
  readonly params: ParamSet[];
  /** spec.template with the generator's override merged over it. */
  readonly template: ApplicationSetTemplate;
}

/**
 * Generates the parameter sets of an ApplicationSet. Rejects with the first GeneratorError, and
 * with one for an entry that sets no known generator or names one this controller does not run:
 * Argo CD skips such an entry with a warning, which deletes what it generated before
 * (docs/generators.md#common-to-every-generator).
 */
export async function generateParams(
  appSet: ApplicationSet,
  ctx: Omit<GeneratorContext, "depth">,
  registry: GeneratorRegistry,
): Promise<GeneratedParams[]> {
  const out: GeneratedParams[] = [];
  let total = 0;
  for (const [i, entry] of appSet.spec.generators.entries()) {
    const unknown = unknownGeneratorKeys(entry);
    if (kindsOf(entry).length === 0 || unknown.length > 0) {
      throw new GeneratorError(unrecognizedGenerators(appSet.metadata.name ?? "", i, unknown));
    }
    const results = await transformEntry(entry, appSet, { ...ctx, depth: 0 }, { registry });
    for (const r of results) {
      total += r.params.length;
      if (total > ctx.settings.maxParameterSets)
        throw new GeneratorError(BudgetMessage.tooManyParameterSets(ctx.settings.maxParameterSets));
      const template = mergeTemplate(
        r.template as Json | undefined,
        appSet.spec.template as unknown as Json,
      ) as unknown as ApplicationSetTemplate;
      out.push({ entry: i, kind: r.kind, params: r.params, template });
    }
  }
  return out;
}

/** The ApplicationSet's requeue (ms): the minimum non-zero over top-level generators, 0 for none. */
export function appSetRequeueAfterMs(appSet: ApplicationSet, settings: GeneratorSettings, registry: GeneratorRegistry): number {
  let min = 0;
  for (const entry of appSet.spec.generators) {
    const ms = entryRequeueAfterMs(entry, { settings, depth: 0 }, registry);
    if (ms > 0 && (min === 0 || ms < min)) min = ms;
  }
  return min;
}
