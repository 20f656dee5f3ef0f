/**
 * Per-test namespaces on the shared control plane: every test works in a namespace of its own and
 * removes it afterwards.
 */
import { randomBytes } from "node:crypto";
import { CoreV1Api, KubeConfig } from "@kubernetes/client-node";
import { inject } from "vitest";

/** The shared control plane's kubeconfig, loaded. */
export function sharedKubeConfig(): KubeConfig {
  const kc = new KubeConfig();
  kc.loadFromFile(inject("kubeconfigPath"));
  return kc;
}

/** Creates a namespace named `<prefix>-<random>` and returns its name. */
export async function createNamespace(kc: KubeConfig, prefix: string): Promise<string> {
  const name = `${prefix}-${randomBytes(3).toString("hex")}`;
  await kc.makeApiClient(CoreV1Api).createNamespace({ body: { metadata: { name } } });
  return name;
}

/** Deletes a namespace without waiting for its finalization. */
export async function deleteNamespace(kc: KubeConfig, name: string): Promise<void> {
  await kc.makeApiClient(CoreV1Api).deleteNamespace({ name });
}
