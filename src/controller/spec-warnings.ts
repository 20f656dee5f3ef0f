/**
 * What an ApplicationSet asks for that Argo CD accepts without a word, yet almost certainly is not
 * what its author meant (docs/controller.md#spec-warnings): an empty generator list, an entry whose
 * generator the schema dropped, a strategy that silently falls back to AllAtOnce, a `maxUpdate` that
 * stalls a step, an ignore rule that ignores nothing, an Application with no repository.
 * The controller behaves exactly as Argo CD does in each case; the warnings only say so, in the
 * `SpecWarning` condition. Pure.
 */
import {
  Annotation,
  ConditionStatus,
  GENERATOR_KINDS,
  SPEC_WARNING_CONDITION,
  StrategyType,
  type ApplicationSet,
  type IntOrString,
} from "../api/index.js";
import type { RenderedApplication } from "../generators/applications.js";
import { kindsOf, unknownGeneratorKeys } from "../generators/transform.js";
import { parseMaxUpdate } from "../progressivesync/budget.js";
import type { ConditionInput } from "./conditions.js";
import { jqSupported, jqSyntaxError } from "../json/index.js";
import { pointerTokens, type Json } from "../json/index.js";

/** The kinds of warning, each a stable condition reason. */
export const SpecWarningReason = {
  NoGenerators: "NoGenerators",
  UnrecognizedGenerator: "UnrecognizedGenerator",
  SeveralGeneratorsInOneEntry: "SeveralGeneratorsInOneEntry",
  ListWithoutElements: "ListWithoutElements",
  StrategyFallsBackToAllAtOnce: "StrategyFallsBackToAllAtOnce",
  ProgressiveSyncsDisabled: "ProgressiveSyncsDisabled",
  MaxUpdateStopsStep: "MaxUpdateStopsStep",
  MaxUpdateOutOfRange: "MaxUpdateOutOfRange",
  IgnoreRuleIgnoresNothing: "IgnoreRuleIgnoresNothing",
  EmptyRepoURL: "EmptyRepoURL",
} as const;
export type SpecWarningReason = (typeof SpecWarningReason)[keyof typeof SpecWarningReason];

/** One warning: its reason and what it means for the ApplicationSet. */
export interface SpecWarning {
  readonly reason: SpecWarningReason;
  readonly message: string;
}

/** What the warnings depend on besides the ApplicationSet. */
export interface SpecWarningContext {
  /** The Applications of this pass; undefined when generation failed. */
  readonly apps?: readonly RenderedApplication[];
  /** `--enable-progressive-syncs`. */
  readonly progressiveSyncs: boolean;
}

const KNOWN = GENERATOR_KINDS.join(", ");
/** How many Application names a per-Application warning quotes. */
const NAMES_QUOTED = 3;

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

/** The generator keys kubectl recorded for entry `i`, when its last-applied configuration is there. */
function appliedKeys(appSet: ApplicationSet, i: number): string[] {
  const raw = appSet.metadata.annotations?.[Annotation.LastAppliedConfiguration];
  if (raw === undefined) return [];
  try {
    const applied = JSON.parse(raw) as { spec?: { generators?: unknown[] } };
    const entry = applied.spec?.generators?.[i];
    return isObject(entry) ? Object.keys(entry).filter((k) => k !== "selector" && k !== "values") : [];
  } catch {
    return [];
  }
}

function generatorWarnings(appSet: ApplicationSet): SpecWarning[] {
  const generators = appSet.spec.generators;
  if (generators.length === 0)
    return [
      {
        reason: SpecWarningReason.NoGenerators,
        message:
          "spec.generators is empty: no Application is generated, and under the sync and create-delete policies existing ones are deleted",
      },
    ];
  const out: SpecWarning[] = [];
  for (const [i, entry] of generators.entries()) {
    const kinds = kindsOf(entry);
    if (kinds.length === 0) {
      const present = unknownGeneratorKeys(entry);
      const keys = present.length > 0 ? present : appliedKeys(appSet, i);
      const named = keys.length > 0 ? ` (it ${present.length > 0 ? "names" : "was applied with"} ${keys.join(", ")})` : "";
      out.push({
        reason: SpecWarningReason.UnrecognizedGenerator,
        message: `spec.generators[${String(i)}] sets no generator${named}: nothing is generated, changed or deleted until it does; the known generators are ${KNOWN}, and the CRD schema drops any other key, so check the spelling`,
      });
    } else if (kinds.length > 1) {
      out.push({
        reason: SpecWarningReason.SeveralGeneratorsInOneEntry,
        message: `spec.generators[${String(i)}] sets ${String(kinds.length)} generators (${kinds.join(", ")}): each runs as a separate generator, not combined; use a matrix or merge generator to combine them`,
      });
    }
    out.push(...listWarnings(entry, `spec.generators[${String(i)}]`));
  }
  return out;
}

/** `list` generators with neither `elements` nor `elementsYaml`, at any depth of matrix and merge. */
function listWarnings(entry: unknown, path: string): SpecWarning[] {
  if (!isObject(entry)) return [];
  const out: SpecWarning[] = [];
  const list = entry["list"];
  if (isObject(list) && list["elements"] === undefined && list["elementsYaml"] === undefined)
    out.push({
      reason: SpecWarningReason.ListWithoutElements,
      message: `${path}.list has neither elements nor elementsYaml: it generates nothing`,
    });
  for (const combination of ["matrix", "merge"]) {
    const children = isObject(entry[combination]) ? entry[combination]["generators"] : undefined;
    if (Array.isArray(children))
      for (const [j, child] of children.entries()) out.push(...listWarnings(child, `${path}.${combination}.generators[${String(j)}]`));
  }
  return out;
}

function strategyWarnings(appSet: ApplicationSet, progressiveSyncs: boolean): SpecWarning[] {
  const s = appSet.spec.strategy;
  if (s === undefined) return [];
  if (s.type === undefined && s.rollingSync === undefined) return [];
  const type = s.type ?? "";
  const fallback = (why: string): SpecWarning => ({
    reason: SpecWarningReason.StrategyFallsBackToAllAtOnce,
    message: `${why}: every Application is updated at once (AllAtOnce)`,
  });
  if (type === StrategyType.RollingSync) {
    if (s.rollingSync === undefined) return [fallback("spec.strategy.type is RollingSync but spec.strategy.rollingSync is missing")];
    if (!progressiveSyncs)
      return [
        {
          reason: SpecWarningReason.ProgressiveSyncsDisabled,
          message:
            "spec.strategy is RollingSync but this controller runs without --enable-progressive-syncs: the steps are ignored and every Application is updated at once",
        },
      ];
    return maxUpdateWarnings(s.rollingSync.steps ?? []);
  }
  if (type === StrategyType.AllAtOnce) return [];
  if (type === "")
    return [
      fallback(
        s.rollingSync === undefined ? "spec.strategy.type is empty" : "spec.strategy.type is empty, so the rollingSync steps are ignored",
      ),
    ];
  return [fallback(`spec.strategy.type ${JSON.stringify(type)} is neither AllAtOnce nor RollingSync`)];
}

function describeMaxUpdate(v: IntOrString): string {
  return typeof v === "number" ? String(v) : JSON.stringify(v);
}

/** `maxUpdate` values Argo CD accepts that stop a step or do not mean what they say. */
function maxUpdateWarnings(steps: readonly { maxUpdate?: IntOrString }[]): SpecWarning[] {
  const out: SpecWarning[] = [];
  for (const [i, step] of steps.entries()) {
    if (step.maxUpdate === undefined) continue;
    const where = `spec.strategy.rollingSync.steps[${String(i)}].maxUpdate ${describeMaxUpdate(step.maxUpdate)}`;
    const m = parseMaxUpdate(step.maxUpdate);
    // 0 and "0%" are the documented way to hold a step for a person to release; a negative count is not.
    if (m.kind === "count" && m.count < 0)
      out.push({
        reason: SpecWarningReason.MaxUpdateStopsStep,
        message: `${where} is negative: as with 0, no Application of step ${String(i + 1)} syncs and the rollout stops there`,
      });
    else if (m.kind === "percent" && m.percent < 0)
      out.push({
        reason: SpecWarningReason.MaxUpdateOutOfRange,
        message: `${where} is negative: step ${String(i + 1)} updates one Application at a time`,
      });
    else if (m.kind === "percent" && m.percent > 100)
      out.push({
        reason: SpecWarningReason.MaxUpdateOutOfRange,
        message: `${where} is over 100%: step ${String(i + 1)} updates all its Applications at once`,
      });
  }
  return out;
}

function ignoreRuleWarnings(appSet: ApplicationSet): SpecWarning[] {
  const out: SpecWarning[] = [];
  for (const [i, rule] of (appSet.spec.ignoreApplicationDifferences ?? []).entries()) {
    const at = `spec.ignoreApplicationDifferences[${String(i)}]`;
    for (const [j, q] of (rule.jqPathExpressions ?? []).entries())
      if (jqSyntaxError(q) === undefined && !jqSupported(q))
        out.push({
          reason: SpecWarningReason.IgnoreRuleIgnoresNothing,
          message: `${at}.jqPathExpressions[${String(j)}] ${JSON.stringify(q)} is not a jq path expression this controller evaluates (paths, [], pipes and select with == or !=): it ignores nothing`,
        });
    for (const [j, p] of (rule.jsonPointers ?? []).entries())
      if (pointerTokens(p) === undefined)
        out.push({
          reason: SpecWarningReason.IgnoreRuleIgnoresNothing,
          message: `${at}.jsonPointers[${String(j)}] ${JSON.stringify(p)} is not a JSON pointer (it must start with /): it ignores nothing`,
        });
  }
  return out;
}

function quoted(names: readonly string[]): string {
  const shown = names.slice(0, NAMES_QUOTED).join(", ");
  return names.length > NAMES_QUOTED ? `${shown} and ${String(names.length - NAMES_QUOTED)} more` : shown;
}

function sourcesOf(spec: Record<string, Json>): Json[] {
  const list = Array.isArray(spec["sources"]) ? spec["sources"] : [];
  return spec["source"] === undefined ? list : [spec["source"], ...list];
}

/**
 * Applications rendered with a source whose `repoURL` is empty. (An empty `spec.project` needs no
 * warning: validation already rejects it, as Argo CD does.)
 */
function applicationWarnings(apps: readonly RenderedApplication[]): SpecWarning[] {
  const noRepo: string[] = [];
  for (const app of apps) {
    const spec = isObject(app.spec) ? (app.spec as Record<string, Json>) : {};
    if (sourcesOf(spec).some((src) => !isObject(src) || ((src as Record<string, Json>)["repoURL"] ?? "") === ""))
      noRepo.push(app.metadata.name ?? "");
  }
  if (noRepo.length === 0) return [];
  return [
    {
      reason: SpecWarningReason.EmptyRepoURL,
      message: `${String(noRepo.length)} Application(s) have a source with an empty repoURL (${quoted(noRepo)}): Argo CD cannot sync them`,
    },
  ];
}

/** Every warning for `appSet` in this pass, in a fixed order. */
export function specWarnings(appSet: ApplicationSet, ctx: SpecWarningContext): SpecWarning[] {
  return [
    ...generatorWarnings(appSet),
    ...strategyWarnings(appSet, ctx.progressiveSyncs),
    ...ignoreRuleWarnings(appSet),
    ...applicationWarnings(ctx.apps ?? []),
  ];
}

/**
 * The `SpecWarning` condition for `warnings` (the first one's reason, every message joined by "; "),
 * or undefined when there is none, so that the condition is removed.
 */
export function specWarningCondition(warnings: readonly SpecWarning[]): ConditionInput | undefined {
  const first = warnings[0];
  if (first === undefined) return undefined;
  return {
    type: SPEC_WARNING_CONDITION,
    status: ConditionStatus.True,
    reason: first.reason,
    message: warnings.map((w) => w.message).join("; "),
  };
}
