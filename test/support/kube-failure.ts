/** What a kube call failed with: it must reject, with a {@link KubeApiError}. */
import { expect } from "vitest";
import { KubeApiError } from "../../src/kube/index.js";

export async function kubeFailure(call: Promise<unknown>): Promise<KubeApiError> {
  const err = await call.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(KubeApiError);
  return err as KubeApiError;
}
