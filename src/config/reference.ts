/**
 * The configuration reference generated from the settings table: one row per setting for the docs,
 * and the Deployment `env` entries that feed `argocd-cmd-params-cm` keys to the process, the way
 * Argo CD's manifests do.
 */
import { OPTIONS, type OptionDef } from "./options.js";
import { formatDurationMs } from "./values.js";

/** One row of the reference table. */
export interface ConfigReferenceRow {
  /** `--flag`, or "" for an environment-only setting. */
  flag: string;
  /** Environment variable, or "". */
  env: string;
  /** `argocd-cmd-params-cm` key, or "". */
  cmKey: string;
  /** The default as text (durations in Go syntax, lists as `[a,b]`). */
  default: string;
  description: string;
  /** Argo CD's setting, a kubectl client flag, or one this controller adds. */
  origin: OptionDef["origin"];
}

/** Formats a default for the reference. */
function defaultText(opt: OptionDef): string {
  if (opt.defaultText !== undefined) return opt.defaultText;
  const d = opt.default;
  if (typeof d === "function") return "(computed)";
  if (Array.isArray(d)) return `[${d.join(",")}]`;
  if (opt.kind === "duration" && typeof d === "number") return formatDurationMs(d);
  return String(d);
}

/** Every setting as a reference row, in table order. */
export function configReference(): ConfigReferenceRow[] {
  return OPTIONS.map((o) => ({
    flag: o.flag === undefined ? "" : `--${o.flag}`,
    env: o.env ?? "",
    cmKey: o.cmKey ?? "",
    default: defaultText(o),
    description: o.deprecated === undefined ? o.description : `${o.description} Deprecated: ${o.deprecated}.`,
    origin: o.origin,
  }));
}

/** A container `env` entry that reads one optional key of a ConfigMap. */
export interface ConfigMapEnvVar {
  name: string;
  valueFrom: { configMapKeyRef: { name: string; key: string; optional: true } };
}

/** The ConfigMap Argo CD keeps its command parameters in. */
export const CMD_PARAMS_CONFIGMAP = "argocd-cmd-params-cm";

/**
 * The Deployment's `env` entries mapping every `argocd-cmd-params-cm` key to its environment
 * variable (optional, so an absent key leaves the default).
 */
export function deploymentEnv(configMap = CMD_PARAMS_CONFIGMAP): ConfigMapEnvVar[] {
  return OPTIONS.filter((o) => o.env !== undefined && o.cmKey !== undefined).map((o) => ({
    name: o.env!,
    valueFrom: { configMapKeyRef: { name: configMap, key: o.cmKey!, optional: true } },
  }));
}
