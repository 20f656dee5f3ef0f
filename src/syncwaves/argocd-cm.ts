/**
 * The sync engine's view of Argo CD's `argocd-cm` (docs/sync-engine.md#custom-health): an informer
 * on that one ConfigMap of Argo CD's namespace, and its data read into
 * {@link ResourceCustomizations} again whenever its resourceVersion changes. A key that cannot be
 * read is logged once per version and skipped; no ConfigMap means no customizations.
 *
 * I/O boundary: none of its own; it reads the informer's cache.
 */
import { resources, type KubeObject } from "../kube/index.js";
import type { Logger } from "../log/logger.js";
import type { InformerSpec } from "../manager/cache.js";
import { ARGOCD_CM, NO_CUSTOMIZATIONS, parseArgoCdConfigMap, type ResourceCustomizations } from "./customizations/index.js";

/** The informer of `argocd-cm` in `namespace` (by a field selector on its name). */
export function argoCdConfigMapSpec(namespace: string): InformerSpec<KubeObject> {
  return { resource: resources.ConfigMaps, namespace, fieldSelector: `metadata.name=${ARGOCD_CM}`, parse: (raw) => raw };
}

/** The string values of a ConfigMap's `data` (others are left out). */
function dataOf(cm: KubeObject | undefined): Record<string, string> | undefined {
  const data = cm?.["data"];
  if (typeof data !== "object" || data === null) return undefined;
  return Object.fromEntries(Object.entries(data).filter((e): e is [string, string] => typeof e[1] === "string"));
}

/** Options of {@link CustomizationsCache}. */
export interface CustomizationsCacheOptions {
  /** Where `argocd-cm` is read from: an informer's `get`. */
  readonly get: (namespace: string, name: string) => KubeObject | undefined;
  readonly namespace: string;
  readonly log?: Logger;
}

/** The customizations of the current `argocd-cm`, parsed once per resourceVersion. */
export class CustomizationsCache {
  private version: string | undefined;
  private value: ResourceCustomizations = NO_CUSTOMIZATIONS;

  constructor(private readonly opts: CustomizationsCacheOptions) {}

  /** The customizations now (none while `argocd-cm` does not exist). */
  current(): ResourceCustomizations {
    const cm = this.opts.get(this.opts.namespace, ARGOCD_CM);
    const version = cm === undefined ? undefined : (cm.metadata?.resourceVersion ?? "");
    if (version === this.version) return this.value;
    const parsed = parseArgoCdConfigMap(dataOf(cm));
    for (const e of parsed.errors) this.opts.log?.warn({ key: e.key, reason: e.reason, err: e.message }, "argocd-cm key skipped");
    this.version = version;
    this.value = parsed.customizations;
    return this.value;
  }
}
