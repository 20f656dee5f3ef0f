/**
 * What the engine asks of the customizations: the Lua health script of a kind, and the
 * system-level ignore rules. Pure.
 */
import type { ResourceIgnoreDifferences } from "../../api/index.js";
import { globMatch } from "../../glob/index.js";
import type { IgnoreDiffOverride, ResourceCustomizations } from "./types.js";

/** A kind's Lua health check. */
export interface HealthScript {
  readonly script: string;
  readonly useOpenLibs: boolean;
  /** The override key it came from (`argoproj.io/Rollout`, `*.example.com/*`, …). */
  readonly key: string;
}

/** The override key of a group and kind (Argo CD's `GetConfigMapKey`): `group/Kind`, or `Kind` for the core group. */
export function overrideKeyFor(group: string, kind: string): string {
  return group === "" ? kind : `${group}/${kind}`;
}

/**
 * The custom health script for `group`/`kind`: the override of that exact key, else the first
 * (in key order) wildcard key that matches and has a script. Undefined when none applies.
 *
 * Argo CD takes whichever matching wildcard key its map iteration yields first, script or not;
 * the key order here makes the choice deterministic.
 */
export function healthScriptFor(custom: ResourceCustomizations | undefined, group: string, kind: string): HealthScript | undefined {
  if (custom === undefined) return undefined;
  const key = overrideKeyFor(group, kind);
  const exact = custom.overrides.get(key);
  if (exact?.healthLua) return { script: exact.healthLua, useOpenLibs: exact.useOpenLibs === true, key };
  const wildcard = [...custom.overrides.keys()].sort().find((k) => k !== key && custom.overrides.get(k)?.healthLua && globMatch(k, key));
  const found = wildcard === undefined ? undefined : custom.overrides.get(wildcard);
  return found?.healthLua ? { script: found.healthLua, useOpenLibs: found.useOpenLibs === true, key: wildcard! } : undefined;
}

/**
 * The system-level ignore rules as `spec.ignoreDifferences` entries (Argo CD's ignore normalizer):
 * an override key `group/kind` gives that group and kind (globs allowed), a key without `/` the
 * kind of the core group.
 */
export function systemIgnoreRules(custom: ResourceCustomizations | undefined): ResourceIgnoreDifferences[] {
  const keys = [...(custom?.overrides.keys() ?? [])].sort();
  return keys.flatMap((key) => {
    const rule = ignoreRuleOf(key, custom?.overrides.get(key)?.ignoreDifferences);
    return rule === undefined ? [] : [rule];
  });
}

/** The rule of one override key, when its ignore fields select anything. */
function ignoreRuleOf(key: string, d: IgnoreDiffOverride | undefined): ResourceIgnoreDifferences | undefined {
  if (d === undefined || ((d.jsonPointers?.length ?? 0) === 0 && (d.jqPathExpressions?.length ?? 0) === 0)) return undefined;
  const slash = key.indexOf("/");
  const lists = Object.entries(d).filter((e): e is [string, readonly string[]] => Array.isArray(e[1]));
  return {
    group: slash < 0 ? "" : key.slice(0, slash),
    kind: slash < 0 ? key : key.slice(slash + 1),
    ...Object.fromEntries(lists.map(([name, values]) => [name, [...values]])),
  };
}
