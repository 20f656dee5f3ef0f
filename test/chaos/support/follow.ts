/**
 * A watch of one resource in one namespace that survives connection failures (an apiserver
 * restart): opened again from the last resourceVersion seen. Each event reaches `on` with the
 * time it arrived.
 */
import { errorMessage } from "../../../src/errors.js";
import type { KubeApiClient, KubeObject, ResourceDescriptor } from "../../../src/kube/index.js";
import { eventually } from "../../e2e/support/controller.js";

/** A running follower; `stop` ends it. */
export interface Follower {
  stop(): void;
}

/** Lists, then watches `resource` in `namespace` until stopped. */
export async function follow(
  client: KubeApiClient,
  resource: ResourceDescriptor,
  namespace: string,
  on: (type: string, object: KubeObject, at: number) => void,
): Promise<Follower> {
  const abort = new AbortController();
  // A fresh control plane may still answer "storage is (re)initializing" for a while.
  const list = await eventually(`a list of ${resource.plural}`, () => client.list(resource, { namespace }));
  for (const item of list.items) on("ADDED", item, performance.now());
  let rv = list.resourceVersion;
  void (async () => {
    while (!abort.signal.aborted) {
      try {
        await client.watch(resource, { namespace, resourceVersion: rv, timeoutSeconds: 300, signal: abort.signal }, (e) => {
          if (e.type === "ERROR") throw new Error(`watch of ${resource.plural} failed: ${JSON.stringify(e.object)}`);
          rv = e.object.metadata?.resourceVersion ?? rv;
          if (e.type !== "BOOKMARK") on(e.type, e.object, performance.now());
        });
      } catch (err) {
        if (abort.signal.aborted) return;
        if (errorMessage(err).startsWith("watch of ")) {
          // Expired (410): list again from now.
          const again = await client.list(resource, { namespace }).catch(() => undefined);
          if (again !== undefined) {
            for (const item of again.items) on("ADDED", item, performance.now());
            rv = again.resourceVersion;
          }
        }
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    }
  })();
  return { stop: () => abort.abort() };
}
