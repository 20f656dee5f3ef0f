import { beforeAll, describe, expect, it } from "vitest";
import type { Application } from "../../../src/api/index.js";
import { resources, type KubeApiClient } from "../../../src/kube/index.js";
import { cliPlane, type CliRun } from "./support/cli-plane.js";

// `appset sync` through the CLI entry (docs/cli.md) against a real apiserver with Argo CD's CRDs. No sync engine
// runs: the test finishes an operation by writing what the engine writes (the operation taken off,
// a final `status.operationState`).

const NS = "argocd";
const plane = cliPlane();
let client: KubeApiClient;

const appset = (...args: string[]): Promise<CliRun> => plane.appset(args);

async function createApp(name: string, syncPolicy: Record<string, unknown> = {}): Promise<void> {
  await client.create(resources.Applications, {
    apiVersion: "argoproj.io/v1alpha1",
    kind: "Application",
    metadata: { name, namespace: NS },
    spec: {
      project: "default",
      destination: { server: "https://kubernetes.default.svc", namespace: name },
      source: { repoURL: "https://example.com/r.git", path: "p" },
      syncPolicy,
    },
  });
}

const getApp = (name: string): Promise<Application> => client.get<Application>(resources.Applications, { namespace: NS, name });

/** What the sync engine writes when an operation ends. */
async function finish(name: string, phase: string, message: string): Promise<void> {
  const app = await getApp(name);
  const operationState = {
    operation: app.operation,
    phase,
    message,
    startedAt: "2026-12-06T10:00:00Z",
    finishedAt: "2026-12-06T10:00:05Z",
  };
  await client.patch(
    resources.Applications,
    { namespace: NS, name },
    { type: "merge", body: { operation: null, status: { operationState } } },
  );
}

async function until(check: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 200 && !(await check()); i++) await new Promise((r) => setTimeout(r, 50));
}

beforeAll(async () => {
  client = plane.client();
  await client.create(resources.Namespaces, { metadata: { name: NS } });
}, 120_000);

describe("appset sync", () => {
  it("--async writes the operation with the flags' fields and returns at once", async () => {
    await createApp("async-app", { syncOptions: ["CreateNamespace=true"], retry: { limit: 2 } });
    const res = await appset(
      "sync",
      "async-app",
      "-n",
      NS,
      "--async",
      "--revision",
      "v1.2.0",
      "--prune",
      "--dry-run",
      "--resource",
      "apps:Deployment:web",
      "--resource",
      ":Service:async-app/web",
    );
    expect(res.err).toBe("");
    expect(res.code).toBe(0);
    expect(res.out).toBe("Asked the sync engine to sync application async-app (namespace argocd) as a dry run\n");
    const app = await getApp("async-app");
    expect(app.operation).toEqual({
      sync: {
        revision: "v1.2.0",
        prune: true,
        dryRun: true,
        resources: [
          { group: "apps", kind: "Deployment", name: "web" },
          { group: "", kind: "Service", name: "web", namespace: "async-app" },
        ],
        syncOptions: ["CreateNamespace=true"],
      },
      initiatedBy: { username: expect.any(String) },
      retry: { limit: 2 },
    });
    expect(app.operation?.initiatedBy?.username).not.toBe("");
    expect(app.operation?.initiatedBy?.automated).toBeUndefined();
  });

  it("refuses while an operation is on the Application, as Argo CD does", async () => {
    const res = await appset("sync", "async-app", "--async", "-n", NS);
    expect(res.code).toBe(1);
    expect(res.err).toBe("appset sync: another operation is already in progress\n");
  });

  it("waits for the operation and reports its phase and message", async () => {
    await createApp("wait-app");
    await finish("async-app", "Succeeded", "old"); // another Application's state plays no part
    const waiting = appset("sync", "wait-app", "-n", NS, "--sync-option", "ServerSideApply=true");
    await until(async () => (await getApp("wait-app")).operation !== undefined);
    expect((await getApp("wait-app")).operation?.sync).toEqual({ syncOptions: ["ServerSideApply=true"] });
    await finish("wait-app", "Succeeded", "successfully synced (all tasks run)");
    const res = await waiting;
    expect(res.err).toBe("");
    expect(res.code).toBe(0);
    expect(res.out).toContain("Phase:      Succeeded\nMessage:    successfully synced (all tasks run)\n");
  }, 30_000);

  it("a new sync clears the last operation's state and exits 1 when it fails", async () => {
    const waiting = appset("sync", "wait-app", "-n", NS);
    await until(async () => (await getApp("wait-app")).operation !== undefined);
    expect((await getApp("wait-app")).status?.operationState).toBeUndefined();
    await finish("wait-app", "Failed", "one or more objects failed to apply");
    const res = await waiting;
    expect(res.code).toBe(1);
    expect(res.out).toContain("Phase:      Failed\n");
  }, 30_000);

  it("times out when nothing finishes the operation", async () => {
    await createApp("slow-app");
    const res = await appset("sync", "slow-app", "-n", NS, "--timeout", "1s");
    expect(res.code).toBe(1);
    expect(res.err).toMatch(/^appset sync: timed out after 1s/);
  }, 30_000);

  it("exits 2 on a usage error and 1 when the Application does not exist", async () => {
    expect((await appset("sync", "x", "--resource", "Deployment:web")).code).toBe(2);
    expect((await appset("sync", "x", "--async", "--timeout", "1m")).code).toBe(2);
    expect((await appset("sync")).code).toBe(2);
    const missing = await appset("sync", "missing", "-n", NS);
    expect(missing.code).toBe(1);
    expect(missing.err).toBe("appset sync: application missing not found in namespace argocd\n");
  });
});
