/**
 * Reads the `data` of `argocd-cm` into {@link ResourceCustomizations}: the combined
 * `resource.customizations` YAML first, then each `resource.customizations.<type>.<group_kind>` key
 * on top of it (in key order), then `resource.exclusions` and `resource.inclusions`. Pure.
 *
 * Unlike Argo CD, which refuses every override when one key is malformed, a key that cannot be read
 * is reported as a {@link CustomizationError} and skipped; the other keys still apply.
 */
import { yaml } from "../../yaml.js";
import { parseFlagBool } from "../../config/values.js";
import { errorMessage } from "../../errors.js";
import { CUSTOMIZATIONS_KEY, parseSplitKey, type SplitKey } from "./keys.js";
import {
  CustomizationError,
  CustomizationReason,
  type FilteredResource,
  type IgnoreDiffOverride,
  type ParsedCustomizations,
  type ResourceOverride,
} from "./types.js";

/** The `argocd-cm` keys of the resource filters. */
export const EXCLUSIONS_KEY = "resource.exclusions";
export const INCLUSIONS_KEY = "resource.inclusions";

type Overrides = Map<string, ResourceOverride>;
type Errors = CustomizationError[];

const invalid = (key: string, message: string): CustomizationError =>
  new CustomizationError(key, CustomizationReason.InvalidValue, message);

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** The YAML of a key's value; undefined (with an error recorded) when it does not parse. */
function yamlOf(key: string, text: string, errors: Errors): unknown {
  try {
    return yaml().parse(text) as unknown;
  } catch (err) {
    errors.push(invalid(key, `invalid YAML: ${errorMessage(err)}`));
    return undefined;
  }
}

/** A list of strings (absent: undefined); throws when it is something else. */
function stringList(v: unknown, field: string): string[] | undefined {
  if (v === undefined || v === null) return undefined;
  if (!Array.isArray(v) || v.some((s) => typeof s !== "string")) throw new Error(`${field} must be a list of strings`);
  return v as string[];
}

/** An `OverrideIgnoreDiff` from its YAML text (or an already parsed map); undefined after an error. */
function ignoreDiffOf(key: string, raw: unknown, errors: Errors): IgnoreDiffOverride | undefined {
  const value = typeof raw === "string" ? yamlOf(key, raw, errors) : raw;
  if (value === undefined || value === null) return undefined;
  try {
    if (!isRecord(value)) throw new Error("ignoreDifferences must be a map");
    const jsonPointers = stringList(value["jsonPointers"], "jsonPointers");
    const jqPathExpressions = stringList(value["jqPathExpressions"], "jqPathExpressions");
    const managedFieldsManagers = stringList(value["managedFieldsManagers"], "managedFieldsManagers");
    return {
      ...(jsonPointers ? { jsonPointers } : {}),
      ...(jqPathExpressions ? { jqPathExpressions } : {}),
      ...(managedFieldsManagers ? { managedFieldsManagers } : {}),
    };
  } catch (err) {
    errors.push(invalid(key, errorMessage(err)));
    return undefined;
  }
}

/** A boolean given as YAML `true` or as Go's `strconv.ParseBool` text; undefined after an error. */
function boolOf(key: string, raw: unknown, errors: Errors): boolean | undefined {
  if (typeof raw === "boolean") return raw;
  const parsed = parseFlagBool(typeof raw === "string" ? raw.trim() : String(raw));
  if (parsed.ok) return parsed.value;
  errors.push(invalid(key, parsed.error));
  return undefined;
}

/** One entry of the combined YAML (`health.lua`, `health.lua.useOpenLibs`, `ignoreDifferences`). */
function combinedEntry(where: string, raw: unknown, errors: Errors): ResourceOverride | undefined {
  if (!isRecord(raw)) {
    errors.push(invalid(where, "an override must be a map"));
    return undefined;
  }
  const health = raw["health.lua"];
  const openLibs = raw["health.lua.useOpenLibs"];
  const useOpenLibs = openLibs === undefined ? undefined : boolOf(where, openLibs, errors);
  const ignoreDifferences = ignoreDiffOf(where, raw["ignoreDifferences"], errors);
  return {
    ...(typeof health === "string" ? { healthLua: health } : {}),
    ...(useOpenLibs !== undefined ? { useOpenLibs } : {}),
    ...(ignoreDifferences ? { ignoreDifferences } : {}),
  };
}

/** The combined `resource.customizations` YAML. */
function readCombined(text: string | undefined, overrides: Overrides, errors: Errors): void {
  if (text === undefined || text.trim() === "") return;
  const value = yamlOf(CUSTOMIZATIONS_KEY, text, errors);
  if (value === undefined || value === null) return;
  if (!isRecord(value)) {
    errors.push(invalid(CUSTOMIZATIONS_KEY, "must be a map of group/kind to override"));
    return;
  }
  for (const [overrideKey, raw] of Object.entries(value)) {
    const entry = combinedEntry(`${CUSTOMIZATIONS_KEY}: ${overrideKey}`, raw, errors);
    if (entry !== undefined) overrides.set(overrideKey, entry);
  }
}

/** The field a split key sets, or undefined when it sets none used here (or its value is bad). */
function splitField(key: string, split: SplitKey, value: string, errors: Errors): Partial<ResourceOverride> | undefined {
  switch (split.type) {
    case "health":
      return { healthLua: value };
    case "useOpenLibs": {
      const useOpenLibs = boolOf(key, value, errors);
      return useOpenLibs === undefined ? undefined : { useOpenLibs };
    }
    case "ignoreDifferences": {
      const ignoreDifferences = ignoreDiffOf(key, value, errors);
      return ignoreDifferences === undefined ? undefined : { ignoreDifferences };
    }
    default:
      return undefined;
  }
}

/** Applies one split key on top of the overrides read so far. */
function applySplitKey(key: string, value: string, overrides: Overrides, errors: Errors): void {
  const split = parseSplitKey(key);
  if (split === undefined) return;
  if (split instanceof CustomizationError) {
    errors.push(split);
    return;
  }
  const field = splitField(key, split, value, errors);
  if (field !== undefined) overrides.set(split.overrideKey, { ...overrides.get(split.overrideKey), ...field });
}

/** A `resource.exclusions` or `resource.inclusions` list; empty after an error. */
function readFiltered(key: string, text: string | undefined, errors: Errors): FilteredResource[] {
  if (text === undefined || text.trim() === "") return [];
  const value = yamlOf(key, text, errors);
  if (value === undefined || value === null) return [];
  try {
    if (!Array.isArray(value)) throw new Error("must be a list of {apiGroups, kinds, clusters}");
    return value.map((item: unknown) => {
      if (!isRecord(item)) throw new Error("each entry must be a map of apiGroups, kinds and clusters");
      const apiGroups = stringList(item["apiGroups"], "apiGroups");
      const kinds = stringList(item["kinds"], "kinds");
      const clusters = stringList(item["clusters"], "clusters");
      return { ...(apiGroups ? { apiGroups } : {}), ...(kinds ? { kinds } : {}), ...(clusters ? { clusters } : {}) };
    });
  } catch (err) {
    errors.push(invalid(key, errorMessage(err)));
    return [];
  }
}

/** Reads `argocd-cm`'s data (absent: no customizations). Never throws. */
export function parseArgoCdConfigMap(data: Readonly<Record<string, string>> | undefined): ParsedCustomizations {
  const errors: Errors = [];
  const overrides: Overrides = new Map();
  const d = data ?? {};
  readCombined(d[CUSTOMIZATIONS_KEY], overrides, errors);
  for (const key of Object.keys(d).sort()) applySplitKey(key, d[key] ?? "", overrides, errors);
  return {
    customizations: {
      overrides,
      exclusions: readFiltered(EXCLUSIONS_KEY, d[EXCLUSIONS_KEY], errors),
      inclusions: readFiltered(INCLUSIONS_KEY, d[INCLUSIONS_KEY], errors),
    },
    errors,
  };
}
