/**
 * What the sync engine reads from Argo CD's `argocd-cm` ConfigMap (docs/sync-engine.md#custom-health):
 * resource overrides by group and kind (Lua health checks, system-level ignore rules), and the
 * resource exclusions and inclusions. Plain data; {@link parseArgoCdConfigMap} builds it.
 */
import { AppSetError } from "../../errors.js";

/** The ConfigMap Argo CD keeps its settings in, in the controller's namespace. */
export const ARGOCD_CM = "argocd-cm";

/** The fields of a system-level ignore rule (Argo CD's `OverrideIgnoreDiff`). */
export interface IgnoreDiffOverride {
  readonly jsonPointers?: readonly string[];
  readonly jqPathExpressions?: readonly string[];
  readonly managedFieldsManagers?: readonly string[];
}

/** What `argocd-cm` says about one group and kind (Argo CD's `ResourceOverride`, the parts read here). */
export interface ResourceOverride {
  /** The Lua health script; empty or absent: none. */
  readonly healthLua?: string;
  /** `useOpenLibs`: the script may use the coroutine and utf8 libraries too (never io, os or debug here). */
  readonly useOpenLibs?: boolean;
  readonly ignoreDifferences?: IgnoreDiffOverride;
}

/** One entry of `resource.exclusions` or `resource.inclusions`: empty lists match everything. */
export interface FilteredResource {
  /** Globs of API groups ("" is the core group). */
  readonly apiGroups?: readonly string[];
  /** Kinds, exactly or `*`. */
  readonly kinds?: readonly string[];
  /** Globs of cluster server URLs. */
  readonly clusters?: readonly string[];
}

/** The customizations of one reading of `argocd-cm`. */
export interface ResourceCustomizations {
  /**
   * Overrides by key: `group/Kind`, `Kind` for the core group, `*\/*` for the `all` keys, or a
   * glob such as `*.crossplane.io/*`.
   */
  readonly overrides: ReadonlyMap<string, ResourceOverride>;
  readonly exclusions: readonly FilteredResource[];
  readonly inclusions: readonly FilteredResource[];
}

/** No customizations: what the engine uses without an `argocd-cm`. */
export const NO_CUSTOMIZATIONS: ResourceCustomizations = { overrides: new Map(), exclusions: [], inclusions: [] };

/** Stable reasons of {@link CustomizationError}. */
export const CustomizationReason = {
  /** A `resource.customizations.<type>.<group_kind>` key whose group and kind cannot be read. */
  InvalidKey: "InvalidCustomizationKey",
  /** A customization type Argo CD does not know. */
  UnsupportedType: "UnsupportedCustomizationType",
  /** A value that is not the YAML (or boolean) its key takes. */
  InvalidValue: "InvalidCustomizationValue",
} as const;
export type CustomizationReason = (typeof CustomizationReason)[keyof typeof CustomizationReason];

/** One `argocd-cm` key that could not be read; the rest of the ConfigMap still applies. */
export class CustomizationError extends AppSetError {
  constructor(
    /** The ConfigMap key. */
    readonly key: string,
    reason: CustomizationReason,
    message: string,
  ) {
    super(reason, `argocd-cm key ${JSON.stringify(key)}: ${message}`);
  }
}

/** What {@link parseArgoCdConfigMap} returns: the customizations, and the keys it had to skip. */
export interface ParsedCustomizations {
  readonly customizations: ResourceCustomizations;
  readonly errors: readonly CustomizationError[];
}
