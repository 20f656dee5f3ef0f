/**
 * The shared frame of an e2e file: its client, the scratch directories, controller processes and
 * namespaces its tests start, all killed and deleted after the file's tests; and the usual first
 * step, a fresh namespace with the `default` AppProject (and an in-process controller over it).
 */
import { afterAll } from "vitest";
import { resources, type KubeApiClient } from "../../../src/kube/index.js";
import { TempDirs } from "../../integration/support/git-repos.js";
import {
  controllerNamespace,
  sharedClient,
  startController,
  type ControllerProcess,
  type RunningController,
  type StartOptions,
} from "./controller.js";

/** What a file's tests register for clean-up, and the steps that register it. */
export interface E2eSuite {
  readonly temp: TempDirs;
  /** Processes killed (SIGKILL) after the file's tests when still running. */
  readonly procs: ControllerProcess[];
  /** Namespaces deleted after the file's tests. */
  readonly namespaces: string[];
  /** The file's client, made on first use and closed after the file's tests. */
  readonly client: () => KubeApiClient;
  /** `<prefix>-<random>` with the `default` AppProject, deleted after the file's tests. */
  readonly namespace: (prefix: string) => Promise<string>;
  /** A fresh namespace and an in-process controller over it (the caller stops the controller). */
  readonly setup: (prefix: string, opts?: Omit<StartOptions, "namespace">) => Promise<{ ns: string; run: RunningController }>;
}

/** Registers the clean-up of an e2e file; call at module level. */
export function e2eSuite(): E2eSuite {
  let made: KubeApiClient | undefined;
  const client = (): KubeApiClient => (made ??= sharedClient());
  const namespaces: string[] = [];
  const namespace = async (prefix: string): Promise<string> => {
    const ns = await controllerNamespace(client(), prefix);
    namespaces.push(ns);
    return ns;
  };
  const suite: E2eSuite = {
    temp: new TempDirs(),
    procs: [],
    namespaces,
    client,
    namespace,
    setup: async (prefix, opts = {}) => {
      const ns = await namespace(prefix);
      return { ns, run: await startController({ namespace: ns, ...opts }) };
    },
  };
  afterAll(async () => {
    for (const p of suite.procs) if (p.child.exitCode === null) p.child.kill("SIGKILL");
    for (const ns of namespaces)
      await client()
        .delete(resources.Namespaces, { name: ns })
        .catch(() => undefined);
    await client().transport.close();
    suite.temp.cleanup();
  });
  return suite;
}
