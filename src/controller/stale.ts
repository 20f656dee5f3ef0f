/**
 * Stale Applications (docs/controller.md#stale-applications): owned Applications whose name is not
 * among the generated names (invalid ones count as generated, so they are kept). One whose
 * destination no longer resolves first loses exactly `resources-finalizer.argocd.argoproj.io`, so
 * its deletion does not hang on a cluster that is gone. Pure.
 */
import { Finalizer, type Application } from "../api/index.js";
import { resolveDestination, type KnownCluster } from "./destination.js";
import type { AppDelete } from "./plan-types.js";

function hasKnownDestination(app: Application, known: readonly KnownCluster[]): boolean {
  const dest = app.spec.destination;
  if (!resolveDestination(dest, known).ok) return false;
  return known.some(
    (c) =>
      (dest.server !== undefined && dest.server !== "" && c.server === dest.server.replace(/\/+$/, "")) ||
      (dest.name !== undefined && dest.name !== "" && c.name === dest.name),
  );
}

/** The deletes for owned Applications not among `generatedNames`, sorted by name. */
export function planStale(owned: readonly Application[], generatedNames: ReadonlySet<string>, known: readonly KnownCluster[]): AppDelete[] {
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
