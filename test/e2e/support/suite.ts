/**
 * The shared frame of the progressive-sync e2e files: a scratch-directory set, the controller
 * processes and namespaces a file starts, all killed and deleted after the file's tests.
 */
import { afterAll } from "vitest";
import { resources, type KubeApiClient } from "../../../src/kube/index.js";
import { TempDirs } from "../../integration/support/git-repos.js";
import { sharedClient, type ControllerProcess } from "./controller.js";

/** What a file's tests register for clean-up. */
export interface RolloutSuite {
  readonly temp: TempDirs;
  /** Processes killed (SIGKILL) after the file's tests when still running. */
  readonly procs: ControllerProcess[];
  /** Namespaces deleted after the file's tests. */
  readonly namespaces: string[];
  /** The file's client, made on first use and closed after the file's tests. */
  readonly client: () => KubeApiClient;
}

/** Registers the clean-up of a progressive-sync e2e file; call at module level. */
export function rolloutSuite(): RolloutSuite {
  let made: KubeApiClient | undefined;
  const suite: RolloutSuite = { temp: new TempDirs(), procs: [], namespaces: [], client: () => (made ??= sharedClient()) };
  afterAll(async () => {
    for (const p of suite.procs) if (p.child.exitCode === null) p.child.kill("SIGKILL");
    const client = suite.client();
    for (const ns of suite.namespaces) await client.delete(resources.Namespaces, { name: ns }).catch(() => undefined);
    await client.transport.close();
    suite.temp.cleanup();
  });
  return suite;
}
