/**
 * Argo CD's resource customizations from `argocd-cm` (docs/sync-engine.md#custom-health): parsing,
 * the glob dialect, exclusions and inclusions, and the lookups the engine makes. Pure.
 */
export { globMatch } from "../../glob/index.js";
export { CUSTOMIZATIONS_KEY, overrideKeyOf, parseSplitKey, type CustomizationType, type SplitKey } from "./keys.js";
export { EXCLUSIONS_KEY, INCLUSIONS_KEY, parseArgoCdConfigMap } from "./parse.js";
export { CORE_EXCLUSIONS, isExcluded, matchesResource } from "./filter.js";
export { healthScriptFor, overrideKeyFor, systemIgnoreRules, type HealthScript } from "./lookup.js";
export {
  ARGOCD_CM,
  CustomizationError,
  CustomizationReason,
  NO_CUSTOMIZATIONS,
  type FilteredResource,
  type IgnoreDiffOverride,
  type ParsedCustomizations,
  type ResourceCustomizations,
  type ResourceOverride,
} from "./types.js";
