/**
 * Stale Applications (docs/controller.md#stale-applications): owned Applications whose name is not
 * among the generated names (invalid ones count as generated, so they are kept). One whose
 * destination no longer resolves first loses exactly `resources-finalizer.argocd.argoproj.io`, so
 * its deletion does not hang on a cluster that is gone. Pure.
 */
import { Finalizer, type Application } from "../api/index.js";
import { resolveDestination, type KnownClusters } from "../project/index.js";
import type { AppDelete } from "./plan-types.js";

function hasKnownDestination(app: Application, known: KnownClusters): boolean {
  return resolveDestination(app.spec.destination, known).ok;
}

/** The deletes for owned Applications not among `generatedNames`, sorted by name. */
export function planStale(owned: readonly Application[], generatedNames: ReadonlySet<string>, known: KnownClusters): AppDelete[] {
  const out: AppDelete[] = [];
  for (const app of owned) {
    const name = app.metadata.name ?? "";
    if (generatedNames.has(name)) continue;
    const finalizers = app.metadata.finalizers ?? [];
    const strip = finalizers.length > 0 && finalizers.includes(Finalizer.Resources) && !hasKnownDestination(app, known);
    const terminating = app.metadata.deletionTimestamp != null;
    if (terminating && !strip) continue;
    out.push({
      name,
      uid: app.metadata.uid,
      delete: !terminating,
      ...(strip ? { keepFinalizers: finalizers.filter((f) => f !== Finalizer.Resources) } : {}),
    });
  }
  return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
