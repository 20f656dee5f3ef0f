/**
 * The frame of a chaos file: a private control plane (etcd, kube-apiserver and
 * kube-controller-manager, for garbage collection and namespace deletion), its client, scratch
 * directories and the controller processes the file starts, all stopped after its tests.
 */
import { afterAll, beforeAll } from "vitest";
import { KubeApiClient } from "../../../src/kube/index.js";
import { startControlPlane, type ControlPlane } from "../../cluster/control-plane.js";
import { TempDirs } from "../../integration/support/git-repos.js";
import type { ControllerProcess } from "../../e2e/support/controller.js";

/** What a chaos file's tests use. */
export interface ChaosPlane {
  readonly cp: () => ControlPlane;
  readonly client: () => KubeApiClient;
  readonly temp: TempDirs;
  /** Processes killed (SIGKILL) after the file's tests when still running. */
  readonly procs: ControllerProcess[];
}

/** Registers the control plane's start and stop; call at module level. */
export function chaosPlane(): ChaosPlane {
  let cp: ControlPlane | undefined;
  let client: KubeApiClient | undefined;
  const plane: ChaosPlane = {
    cp: () => cp ?? fail("control plane"),
    client: () => client ?? fail("client"),
    temp: new TempDirs(),
    procs: [],
  };
  beforeAll(async () => {
    cp = await startControlPlane({ components: ["etcd", "apiserver", "controller-manager"] });
    client = KubeApiClient.fromConfig({ kind: "file", path: cp.kubeconfigPath });
  }, 180_000);
  afterAll(async () => {
    for (const p of plane.procs) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill("SIGKILL");
    await Promise.all(plane.procs.map((p) => p.exited));
    await client?.transport.close();
    await cp?.stop();
    plane.temp.cleanup();
  }, 120_000);
  return plane;
}

function fail(what: string): never {
  throw new Error(`the chaos ${what} is not started`);
}

/** Resolves after `ms`. */
export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));
