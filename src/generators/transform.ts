/**
 * The common pipeline around every generator (docs/generators.md#common-to-every-generator): parse
 * the entry's post-selector, interpolate the entry with the parameters of a matrix's first child
 * when given, run each generator kind the entry sets, and keep the parameter sets that match the
 * selector. Used for top-level entries and for the children of matrix and merge alike, at any
 * nesting depth up to the configured cap.
 */
import {
  GENERATOR_KINDS,
  matrixGeneratorSchema,
  mergeGeneratorSchema,
  parseWith,
  type ApplicationSet,
  type ApplicationSetGenerator,
  type GeneratorKind,
  type GeneratorTemplate,
  type LabelSelector,
  type NestedGenerator,
} from "../api/index.js";
import { errorMessage } from "../errors.js";
import { GeneratorError, GeneratorWrap, wrapError } from "./errors.js";
import { interpolateEntry } from "./interpolate.js";
import { compileSelector, filterParams, POST_SELECTOR, type LabelMatcher } from "./selector.js";
import { templateMode, type Generator, type GeneratorContext, type ParamSet } from "./types.js";
import type { GeneratorRegistry } from "./registry.js";

/** A generator entry at any level (top-level, or a matrix/merge child). */
export type GeneratorEntry = ApplicationSetGenerator | NestedGenerator;

/** What one generator kind of one entry produced. */
export interface TransformResult {
  readonly kind: GeneratorKind;
  readonly params: ParamSet[];
  /** The generator's own override template (honoured for top-level entries only). */
  readonly template: GeneratorTemplate | undefined;
}

/** A registry entry with its spec type erased (the spec was decoded for exactly this kind). */
function erased(registry: GeneratorRegistry, kind: GeneratorKind): Generator<unknown> {
  return registry[kind];
}

const COMBINATIONS: ReadonlySet<GeneratorKind> = new Set(["matrix", "merge"]);

/** The kinds an entry sets, in Argo CD's order. */
export function kindsOf(entry: Readonly<Record<string, unknown>>): GeneratorKind[] {
  return GENERATOR_KINDS.filter((k) => entry[k] !== undefined && entry[k] !== null);
}

/** The keys of an entry that are neither a generator this controller runs nor `selector`, sorted. */
export function unknownGeneratorKeys(entry: Readonly<Record<string, unknown>>): string[] {
  const known = new Set<string>([...GENERATOR_KINDS, "selector"]);
  return Object.keys(entry)
    .filter((k) => !known.has(k) && entry[k] !== undefined && entry[k] !== null)
    .sort();
}

/** Decodes a matrix/merge spec (raw JSON below the top level) and enforces the nesting cap. */
function decodeSpec(kind: GeneratorKind, raw: unknown, ctx: GeneratorContext): unknown {
  if (!COMBINATIONS.has(kind)) return raw;
  const level = ctx.depth + 1;
  if (level > ctx.settings.maxNestingDepth) {
    throw new GeneratorError(
      `${kind} generator nested ${String(level)} levels deep; the maximum is ${String(ctx.settings.maxNestingDepth)}`,
    );
  }
  if (ctx.depth === 0) return raw;
  const res = parseWith(kind === "matrix" ? matrixGeneratorSchema : mergeGeneratorSchema, raw, `nested ${kind} generator`);
  if (!res.ok) throw new GeneratorError(`error converting to nested ${kind} generator: ${res.error.message}`);
  return res.value;
}

function postSelector(selector: LabelSelector | undefined): LabelMatcher | undefined {
  if (selector === undefined) return undefined;
  try {
    return compileSelector(selector, POST_SELECTOR);
  } catch (err) {
    throw new GeneratorError(`${GeneratorWrap.Selector}: ${errorMessage(err)}`);
  }
}

/** Options of {@link transformEntry}. */
export interface TransformOptions {
  readonly registry: GeneratorRegistry;
  /** Parameters of a matrix's first child, to interpolate this entry with. */
  readonly interpolateWith?: ParamSet;
}

/**
 * Runs every generator kind an entry sets. Rejects with the first generator's error: the caller
 * must then discard everything (an error is never an empty result).
 */
export async function transformEntry(
  entry: GeneratorEntry,
  appSet: ApplicationSet,
  ctx: GeneratorContext,
  opts: TransformOptions,
): Promise<TransformResult[]> {
  const matcher = postSelector(entry.selector);
  const mode = templateMode(appSet);
  const effective = opts.interpolateWith === undefined ? entry : interpolateEntry(entry, opts.interpolateWith, mode, ctx.renderer);
  const results: TransformResult[] = [];
  for (const kind of kindsOf(effective)) {
    const spec = decodeSpec(kind, (effective as Record<string, unknown>)[kind], ctx);
    const generator = erased(opts.registry, kind);
    let params: ParamSet[];
    try {
      params = await generator.generate(spec, appSet, ctx);
    } catch (err) {
      throw err instanceof GeneratorError ? err : wrapError(`error generating params from ${kind}`, err);
    }
    const template = generator.template(spec);
    results.push({ kind, params: matcher === undefined ? params : filterParams(params, matcher), template });
  }
  return results;
}

/**
 * The parameters of a matrix/merge child: exactly one generator kind, which produced a result.
 * Errors carry Argo CD's wrapping.
 */
export async function childParams(
  child: NestedGenerator,
  appSet: ApplicationSet,
  ctx: GeneratorContext,
  opts: TransformOptions,
): Promise<ParamSet[]> {
  let results: TransformResult[];
  try {
    results = await transformEntry(child, appSet, { ...ctx, depth: ctx.depth + 1 }, opts);
  } catch (err) {
    throw wrapError(GeneratorWrap.ChildError, err);
  }
  if (results.length === 0) throw new GeneratorError("child generator generated no parameters");
  if (results.length > 1) throw new GeneratorError("found more than one generator in matrix.Generators");
  return results[0]!.params;
}

/** Minimum non-zero requeue (ms) over the kinds of an entry; 0 when none asks for one. */
export function entryRequeueAfterMs(
  entry: Readonly<Record<string, unknown>>,
  ctx: Pick<GeneratorContext, "settings" | "depth">,
  registry: GeneratorRegistry,
): number {
  let min = 0;
  for (const kind of kindsOf(entry)) {
    let spec: unknown;
    try {
      spec = decodeSpec(kind, entry[kind], { ...ctx } as GeneratorContext);
    } catch {
      continue;
    }
    const ms = erased(registry, kind).requeueAfterMs(spec, ctx.settings);
    if (ms > 0 && (min === 0 || ms < min)) min = ms;
  }
  return min;
}
