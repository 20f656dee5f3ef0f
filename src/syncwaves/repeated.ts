/**
 * Objects the manifests define more than once (docs/sync-engine.md#comparison-and-status): the last
 * definition of each (group, kind, namespace, name) wins, and each repeated one is reported in a
 * `RepeatedResourceWarning` condition, as Argo CD does. Pure.
 */
import type { KubeObject } from "../kube/index.js";
import { keyString, resourceKeyOf } from "./objects.js";

/** The manifests with repeats dropped, and one warning message per repeated object. */
export interface Deduplicated {
  readonly objects: KubeObject[];
  readonly warnings: string[];
}

/**
 * Keeps the last of each repeated object, at the place of its first definition. A `generateName`
 * object without a name is keyed by its position, so such objects never repeat. Messages read
 * `Resource <group>/<kind>/<namespace>/<name> appeared <n> times among application resources.`
 */
export function dropRepeated(objects: readonly KubeObject[]): Deduplicated {
  const byKey = new Map<string, KubeObject[]>();
  objects.forEach((o, i) => {
    const k = resourceKeyOf(o);
    const name = k.name === "" && o.metadata?.generateName ? `${o.metadata.generateName}${String(i)}` : k.name;
    const key = keyString({ ...k, name });
    byKey.set(key, [...(byKey.get(key) ?? []), o]);
  });
  const warnings = [...byKey]
    .filter(([, defs]) => defs.length > 1)
    .map(([key, defs]) => `Resource ${key} appeared ${String(defs.length)} times among application resources.`);
  return { objects: [...byKey.values()].map((defs) => defs[defs.length - 1]!), warnings };
}
