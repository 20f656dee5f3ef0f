/**
 * The shape of one controller setting (docs/configuration.md#reference) and the naming helpers of
 * the tables: the environment prefix and `argocd-cmd-params-cm` prefix Argo CD's Deployment uses.
 */

/** How a setting's text is read: a list is comma-split (pflag's StringSlice), an array is not (StringArray). */
export type OptionKind = "bool" | "int" | "float" | "string" | "list" | "array" | "duration";

/** A setting's value: durations are milliseconds. */
export type OptionValue = boolean | number | string | readonly string[];

/** Where a setting comes from. */
export type OptionOrigin = "argo-cd" | "kubectl" | "appset";

/** One setting. */
export interface OptionDef {
  /** Field of the Config object. */
  readonly key: string;
  /** Flag name without the leading `--`; absent for environment-only settings. */
  readonly flag?: string;
  /** Environment variable read for the default. */
  readonly env?: string;
  /** `argocd-cmd-params-cm` key that Argo CD's Deployment maps to {@link env}. */
  readonly cmKey?: string;
  readonly kind: OptionKind;
  /** The default, or how it is computed from the environment. */
  readonly default: OptionValue | ((env: Readonly<Record<string, string | undefined>>) => OptionValue);
  /** How a computed default reads in the reference. */
  readonly defaultText?: string;
  /** Inclusive bounds of an int (or of a duration, in ms). */
  readonly min?: number;
  readonly max?: number;
  /** Allowed values of a string setting. */
  readonly values?: readonly string[];
  readonly description: string;
  /**
   * `ns` when the environment variable of a duration is an integer count of nanoseconds (Argo CD's
   * `*_NS` variables) rather than Go duration text; the flag still takes Go duration text.
   */
  readonly envUnit?: "ns";
  /** The flag's value placeholder in `--help` when it is not the kind's (pflag's `int64`, `float64`). */
  readonly placeholder?: string;
  /** Set when the flag is deprecated: what to use instead. */
  readonly deprecated?: string;
  readonly origin: OptionOrigin;
}

export const ACS = "ARGOCD_APPLICATIONSET_CONTROLLER_";
export const CM = "applicationsetcontroller.";
export const MAX_INT32 = 2_147_483_647;
export const HOUR_MS = 3_600_000;

/** The policies `--policy` accepts ("" means sync). */
export const POLICIES = ["", "sync", "create-only", "create-update", "create-delete"] as const;

export type Def = Omit<OptionDef, "origin">;
export const argo = (d: Def): OptionDef => ({ ...d, origin: "argo-cd" });
