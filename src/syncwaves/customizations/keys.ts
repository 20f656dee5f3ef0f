/**
 * The keys of `argocd-cm` that carry resource customizations, read as Argo CD's settings manager
 * reads them. Pure.
 *
 * - `resource.customizations`: one YAML map of override key → override (the older form).
 * - `resource.customizations.<type>.<group>_<kind>`: one field of one override, where `<group>_<kind>`
 *   becomes `group/kind`, a lone `<kind>` stays `kind` (the core group), and `all` becomes `*\/*`.
 *   Groups hold dots, so everything after the third dot is the group and kind.
 */
import { CustomizationError, CustomizationReason } from "./types.js";

/** The prefix of every customization key. */
export const CUSTOMIZATIONS_KEY = "resource.customizations";

/** The customization types Argo CD knows; only the first three are used here. */
export const CUSTOMIZATION_TYPES = [
  "health",
  "useOpenLibs",
  "ignoreDifferences",
  "actions",
  "ignoreResourceUpdates",
  "knownTypeFields",
] as const;
export type CustomizationType = (typeof CUSTOMIZATION_TYPES)[number];

/** A split key, read: which field of which override it sets. */
export interface SplitKey {
  readonly type: CustomizationType;
  /** `group/kind`, `kind` or `*\/*`. */
  readonly overrideKey: string;
}

/**
 * The override key of the `<group>_<kind>` part of a split key (Argo CD's `convertToOverrideKey`),
 * or undefined when it has more than one `_` or is empty. `_Kind` gives `/Kind`, which, as in
 * Argo CD, matches no object: core kinds are written without a group (`...health.ConfigMap`).
 */
export function overrideKeyOf(groupKind: string): string | undefined {
  const parts = groupKind.split("_");
  if (parts.length === 2) return `${parts[0]}/${parts[1]}`;
  if (parts.length !== 1 || groupKind === "") return undefined;
  return groupKind === "all" ? "*/*" : groupKind;
}

const isType = (t: string): t is CustomizationType => (CUSTOMIZATION_TYPES as readonly string[]).includes(t);

/**
 * Reads a split customization key: undefined when `key` is not one (another setting, or the
 * combined `resource.customizations` key), a {@link CustomizationError} when it is one that cannot
 * be read.
 */
export function parseSplitKey(key: string): SplitKey | CustomizationError | undefined {
  if (!key.startsWith(`${CUSTOMIZATIONS_KEY}.`)) return undefined;
  const rest = key.slice(CUSTOMIZATIONS_KEY.length + 1);
  const dot = rest.indexOf(".");
  if (dot < 0) return undefined;
  const type = rest.slice(0, dot);
  const overrideKey = overrideKeyOf(rest.slice(dot + 1));
  if (overrideKey === undefined) {
    return new CustomizationError(
      key,
      CustomizationReason.InvalidKey,
      `group kind should be in format resource.customizations.<type>.<group_kind> or resource.customizations.<type>.<kind>, got group kind: '${rest.slice(dot + 1)}'`,
    );
  }
  if (!isType(type))
    return new CustomizationError(key, CustomizationReason.UnsupportedType, `resource customization type ${type} not supported`);
  return { type, overrideKey };
}
