/**
 * Read-your-writes for the Application cache (docs/controller.md#read-your-writes): the
 * {@link AppWriteThrough} the executor
 * writes through, over the Applications informer. A delete that leaves the Application terminating
 * (it still has finalizers) keeps the cached entry: the watch brings its deletionTimestamp, then its end.
 */
import type { Application } from "../api/index.js";
import type { Informer } from "../kube/index.js";
import type { AppWriteThrough } from "./app-writes.js";

/** The write side of the Applications informer. */
export function informerWriteThrough(apps: Informer<Application>): AppWriteThrough {
  return {
    written: (obj) => apps.written(obj),
    gone: (namespace, name) => apps.evict(namespace, name),
    deleted: (namespace, name) => {
      const cached = apps.get(namespace, name);
      if ((cached?.metadata.finalizers ?? []).length === 0) apps.evict(namespace, name);
    },
  };
}
