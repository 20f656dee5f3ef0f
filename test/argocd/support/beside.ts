/**
 * The frame of a beside-Argo-CD test file: namespaces with the `default` AppProject, Argo CD's
 * application controller and repo-server for each (support/argocd.ts), our controller as `appset
 * controller --enable-progressive-syncs` without the sync engine (Argo CD syncs), and the clean-up
 * of all of it after each test: two Argo CD instances on one cluster would see each other's
 * objects, so none outlives its test. When a test fails, the end of each Argo CD log is printed.
 */
import { join } from "node:path";
import { afterAll, afterEach, inject } from "vitest";
import { resources, type KubeApiClient } from "../../../src/kube/index.js";
import { controllerNamespace, sharedClient, spawnController, type ControllerProcess } from "../../e2e/support/controller.js";
import { TempDirs } from "../../integration/support/git-repos.js";
import { logTail, startArgoCd, type ArgoCd } from "./argocd.js";

/** The probe and metrics addresses of a controller started by a test (free ports). */
const ADDRS = ["--probe-addr", "127.0.0.1:0", "--metrics-addr", "127.0.0.1:0"];

/** What a file's tests use and register for clean-up. */
export interface BesideSuite {
  readonly temp: TempDirs;
  readonly client: () => KubeApiClient;
  /** A fresh namespace (`default` AppProject included) with Argo CD running for it. */
  namespaceWithArgoCd(prefix: string): Promise<{ ns: string; argo: ArgoCd }>;
  /**
   * Our controller for `ns`, progressive syncs on (grace period 5 s), syncs left to Argo CD; through
   * `kubeconfigPath` (a counting proxy's, say) when given.
   */
  ourController(ns: string, extra?: readonly string[], kubeconfigPath?: string): ControllerProcess;
}

/** Registers the clean-up of a beside-Argo-CD file; call at module level. */
export function besideSuite(): BesideSuite {
  let made: KubeApiClient | undefined;
  const client = (): KubeApiClient => (made ??= sharedClient());
  const temp = new TempDirs();
  const procs: ControllerProcess[] = [];
  const argos: ArgoCd[] = [];
  const namespaces: string[] = [];
  afterEach(async ({ task }) => {
    // Printed here, before Argo CD stops and its data directory goes: a failed test's hooks run first.
    const failed = task.result?.state === "fail";
    for (const p of procs.splice(0)) {
      if (p.child.exitCode === null) p.child.kill("SIGKILL");
      if (failed)
        process.stderr.write(
          `--- our controller (last 80 lines)\n${p.logs
            .slice(-80)
            .map((l) => JSON.stringify(l))
            .join("\n")}\n`,
        );
    }
    for (const a of argos.splice(0)) {
      if (failed)
        for (const name of ["application-controller", "repo-server"]) process.stderr.write(logTail(join(a.dataDir, `${name}.log`)));
      await a.stop();
    }
  });
  afterAll(async () => {
    for (const ns of namespaces)
      await client()
        .delete(resources.Namespaces, { name: ns })
        .catch(() => undefined);
    await client().transport.close();
    temp.cleanup();
  });
  return {
    temp,
    client,
    async namespaceWithArgoCd(prefix) {
      const ns = await controllerNamespace(client(), prefix);
      namespaces.push(ns);
      const argo = await startArgoCd(client(), { kubeconfigPath: inject("kubeconfigPath"), namespace: ns });
      argos.push(argo);
      return { ns, argo };
    },
    ourController(ns, extra = [], kubeconfigPath = inject("kubeconfigPath")) {
      const flags = ["--namespace", ns, ...ADDRS, "--enable-progressive-syncs", "--refresh-grace-period-seconds", "5", ...extra];
      const p = spawnController(flags, "controller", kubeconfigPath);
      procs.push(p);
      return p;
    },
  };
}
