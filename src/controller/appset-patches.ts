/**
 * The controller's writes to an ApplicationSet's own metadata, as the JSON merge patches Argo CD
 * computes with controller-runtime's `MergeFrom` and its optimistic lock: only what changed, plus
 * `metadata.resourceVersion`, so the apiserver refuses (409 Conflict) a patch made from an older
 * version and the key is retried. Go drops an emptied list or map from the JSON it diffs, so the
 * last finalizer or annotation removed is sent as `null`. Pure.
 */
import { Annotation, Finalizer, type ApplicationSet } from "../api/index.js";
import { isObject, type JsonObject } from "../json/index.js";

/** `metadata.resourceVersion` of the optimistic lock (none when the object has none to name). */
function lock(appSet: ApplicationSet): JsonObject {
  const resourceVersion = appSet.metadata.resourceVersion;
  return resourceVersion === undefined || resourceVersion === "" ? {} : { resourceVersion };
}

/** Adds `resources-finalizer.argocd.argoproj.io` (the whole list: a merge patch replaces lists). */
export function addFinalizerPatch(appSet: ApplicationSet): JsonObject {
  const finalizers = [...(appSet.metadata.finalizers ?? []), Finalizer.Resources];
  return { metadata: { finalizers, ...lock(appSet) } };
}

/** Removes `resources-finalizer.argocd.argoproj.io`; undefined when it is not there. */
export function removeFinalizerPatch(appSet: ApplicationSet): JsonObject | undefined {
  const finalizers = appSet.metadata.finalizers ?? [];
  if (!finalizers.includes(Finalizer.Resources)) return undefined;
  const rest = finalizers.filter((f) => f !== Finalizer.Resources);
  return { metadata: { finalizers: rest.length === 0 ? null : rest, ...lock(appSet) } };
}

/** Removes the `argocd.argoproj.io/application-set-refresh` annotation; undefined when it is not set. */
export function removeRefreshPatch(appSet: ApplicationSet): JsonObject | undefined {
  const annotations = appSet.metadata.annotations ?? {};
  if (annotations[Annotation.ApplicationSetRefresh] === undefined) return undefined;
  const only = Object.keys(annotations).length === 1;
  return { metadata: { annotations: only ? null : { [Annotation.ApplicationSetRefresh]: null }, ...lock(appSet) } };
}

/**
 * `body` locked to `appSet`'s resourceVersion instead of the one it was planned with, when it
 * carries a lock: the executor's own earlier writes of the pass (the status) move the version on,
 * and only someone else's change should make the patch fail.
 */
export function relock(body: JsonObject, appSet: ApplicationSet): JsonObject {
  const metadata = body["metadata"];
  if (!isObject(metadata) || !("resourceVersion" in metadata)) return body;
  const { resourceVersion: _planned, ...rest } = metadata;
  return { ...body, metadata: { ...rest, ...lock(appSet) } };
}

/** Whether a metadata patch writes annotations (the refresh annotation's removal). */
export function touchesAnnotations(body: JsonObject): boolean {
  const metadata = body["metadata"];
  return isObject(metadata) && "annotations" in metadata;
}
