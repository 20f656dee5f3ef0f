/**
 * The webhook's Kubernetes side: the ApplicationSets to match (from the controller's informer
 * once it has synced; before that, or on a replica that does not lead, from the API, since the
 * webhook server runs in every replica as in Argo CD), the refresh as a merge patch of the
 * annotation (no resourceVersion, so no conflict to retry), and `argocd-secret` and `argocd-cm`.
 */
import { Annotation, isRecord, parseApplicationSet, parseSecret, type ApplicationSet } from "../api/index.js";
import { resources, type KubeReader, type KubeWriter } from "../kube/index.js";
import { ARGOCD_CM, ARGOCD_SECRET, type SettingsObjects } from "./secrets.js";

/** Where the ApplicationSets come from. */
export interface AppSetSource {
  /** The controller's informer, used once synced. */
  readonly informer?: { hasSynced(): boolean; list(): ApplicationSet[] };
  readonly client: KubeReader;
  /** The namespace listed from the API, or undefined for every namespace. */
  readonly scope: string | undefined;
  /** Whether the controller serves ApplicationSets of a namespace. */
  readonly allowed: (namespace: string) => boolean;
}

/** The ApplicationSets of the allowed namespaces. */
export function appSetLister(src: AppSetSource): () => Promise<ApplicationSet[]> {
  const allowed = (a: ApplicationSet): boolean => src.allowed(a.metadata.namespace ?? "");
  return async () => {
    if (src.informer?.hasSynced() === true) return src.informer.list().filter(allowed);
    const list = await src.client.list(resources.ApplicationSets, src.scope === undefined ? {} : { namespace: src.scope });
    return list.items.flatMap((o) => {
      const r = parseApplicationSet(o);
      return r.ok && allowed(r.value) ? [r.value] : [];
    });
  };
}

function isNotFound(err: unknown): boolean {
  return typeof err === "object" && err !== null && (err as { reason?: unknown }).reason === "NotFound";
}

/** Sets the refresh annotation (with dryRun: validated by the apiserver, not persisted). A deleted ApplicationSet is skipped. */
export function annotationRefresher(client: KubeWriter, dryRun: boolean): (appSet: ApplicationSet) => Promise<void> {
  return async (appSet) => {
    const key = { namespace: appSet.metadata.namespace ?? "", name: appSet.metadata.name ?? "" };
    const body = { metadata: { annotations: { [Annotation.ApplicationSetRefresh]: "true" } } };
    try {
      await client.patch(resources.ApplicationSets, key, { type: "merge", body }, { dryRun });
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  };
}

async function orUndefined<T>(read: () => Promise<T>): Promise<T | undefined> {
  try {
    return await read();
  } catch (err) {
    if (isNotFound(err)) return undefined;
    throw err;
  }
}

/** Reads `argocd-secret` and `argocd-cm` from `namespace` (each undefined when it does not exist). */
export function argoSettingsReader(client: KubeReader, namespace: string): () => Promise<SettingsObjects> {
  return async () => {
    const [secret, cm] = await Promise.all([
      orUndefined(() => client.get(resources.Secrets, { namespace, name: ARGOCD_SECRET })),
      orUndefined(() => client.get(resources.ConfigMaps, { namespace, name: ARGOCD_CM })),
    ]);
    const parsed = secret === undefined ? undefined : parseSecret(secret);
    const data = cm?.["data"];
    return { secret: parsed?.ok ? parsed.value : undefined, configMapData: isRecord(data) ? (data as Record<string, string>) : undefined };
  };
}
