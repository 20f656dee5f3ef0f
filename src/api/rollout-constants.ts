/**
 * The API coordinates of rollout safety (docs/adr/0009-rollout-policy-crd.md): our own group, so
 * Argo CD's ApplicationSet CRD never prunes these settings, and the label that ties a RolloutRun
 * to its ApplicationSet.
 */

/** The API group of `RolloutPolicy` and `RolloutRun`. */
export const ROLLOUT_GROUP = "progressivesync.appset.dev";
/** The only served and stored version. */
export const ROLLOUT_VERSION = "v1alpha1";
/** `apiVersion` of both kinds. */
export const ROLLOUT_GROUP_VERSION = "progressivesync.appset.dev/v1alpha1";

/** The kinds. */
export const RolloutKind = {
  RolloutPolicy: "RolloutPolicy",
  RolloutRun: "RolloutRun",
} as const;
export type RolloutKind = (typeof RolloutKind)[keyof typeof RolloutKind];

/** Plural resource names (the REST path segment). */
export const RolloutPlural = {
  RolloutPolicy: "rolloutpolicies",
  RolloutRun: "rolloutruns",
} as const;

/** Singular resource names. */
export const RolloutSingular = {
  RolloutPolicy: "rolloutpolicy",
  RolloutRun: "rolloutrun",
} as const;

/** Short names for kubectl. */
export const RolloutShortNames = {
  RolloutPolicy: ["rpol"],
  RolloutRun: ["rrun"],
} as const;

/** On a RolloutRun: the name of its ApplicationSet (for listing the runs of one ApplicationSet). */
export const ROLLOUT_APPSET_LABEL = "progressivesync.appset.dev/application-set";

/** Default of `RolloutPolicy.spec.historyLimit`. */
export const DEFAULT_HISTORY_LIMIT = 10;
/** The most control requests a RolloutRun holds; the CRD refuses more. */
export const MAX_RUN_REQUESTS = 200;
