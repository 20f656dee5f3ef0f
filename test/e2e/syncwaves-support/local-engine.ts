/**
 * A sync engine in the test's own process for one namespace of Applications: the cluster's
 * discovery resolves kinds, no wave delay, a short poll. Tests start and stop it.
 */
import { SystemClock } from "../../../src/clock/index.js";
import { Discovery, type KubeApiClient, type KubeObject, type ResourceDescriptor } from "../../../src/kube/index.js";
import { silentLogger } from "../../../src/log/logger.js";
import { SyncEngine, type SyncEngineOptions } from "../../../src/syncwaves/engine.js";
import type { ManifestSource } from "../../../src/syncwaves/manifests.js";

/** The engine over `client` for the Applications of `namespace`, reading manifests from `source`. */
export function localEngine(
  client: KubeApiClient,
  namespace: string,
  source: ManifestSource,
  extra: Partial<SyncEngineOptions> = {},
): SyncEngine {
  const discovery = new Discovery(client.transport);
  const resolve = (o: KubeObject): Promise<ResourceDescriptor> => discovery.resourceFor(o.apiVersion ?? "", o.kind ?? "");
  const base = { watch: client, namespace, client, resolve, source, clock: new SystemClock(), log: silentLogger() };
  return new SyncEngine({ ...base, waveDelayMs: 0, pollMs: 500, ...extra });
}
