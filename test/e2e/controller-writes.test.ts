/**
 * What the controller really sends to the apiserver, counted by a proxy in front of it: a converged
 * controller that reconciles again sends no write at all; an update refused with 409 Conflict is
 * recomputed from a fresh read, and the cache holds what each write returned, so no later pass writes
 * from an older version (read-your-writes); the refresh annotation's removal is locked to the
 * resourceVersion, so a change in between refuses it (409) and it is retried; `--cache-sync-period` relists the caches,
 * so an ApplicationSet whose watch event never arrived is still reconciled; repository credentials
 * follow their Secret, so a fixed password is used without a restart.
 */
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { resources, type KubeApiClient } from "../../src/kube/index.js";
import { serveGitHttp, type GitHttpServer } from "../integration/support/git-http.js";
import { git, makeRepo, TempDirs } from "../integration/support/git-repos.js";
import {
  applications,
  conditionRows,
  controllerNamespace,
  eventually,
  listAppSet,
  readAppSet,
  sharedClient,
  spawnController,
  startController,
  type ControllerProcess,
  type RunningController,
} from "./support/controller.js";
import { settle, SUCCESS, waitForConditions } from "./support/controller-wait.js";
import { CountingProxy } from "./support/proxy-counting.js";

let client: KubeApiClient;
let proxy: CountingProxy;
const namespaces: string[] = [];
const processes: ControllerProcess[] = [];
const temp = new TempDirs();

beforeAll(async () => {
  client = sharedClient();
  proxy = await CountingProxy.start(inject("kubeconfigPath"));
});

afterAll(async () => {
  for (const p of processes) if (p.child.exitCode === null) p.child.kill("SIGKILL");
  for (const ns of namespaces) await client.delete(resources.Namespaces, { name: ns }).catch(() => undefined);
  await client.transport.close();
  await proxy.close();
  temp.cleanup();
});

async function namespace(prefix: string): Promise<string> {
  const ns = await controllerNamespace(client, prefix);
  namespaces.push(ns);
  return ns;
}

function spawnThroughProxy(ns: string, extra: string[] = []): ControllerProcess {
  const p = spawnController(
    ["--namespace", ns, "--probe-addr", "127.0.0.1:0", "--metrics-addr", "127.0.0.1:0", ...extra],
    "controller",
    proxy.kubeconfigPath,
  );
  processes.push(p);
  return p;
}

/** Lets the controller finish, reconciles `web` twice more, and lets it finish again. */
async function requeueAndSettle(run: RunningController, ns: string): Promise<void> {
  await settle(run);
  for (let i = 0; i < 2; i++) {
    run.controller.queue.add(`${ns}/web`);
    await settle(run);
  }
}

describe("the controller's requests, counted at the apiserver's door", () => {
  it("sends no write when it reconciles converged ApplicationSets again, by requeue or by an unrelated change", async () => {
    const ns = await namespace("ctl-wr-noop");
    const run = await startController({ namespace: ns, kubeconfigPath: proxy.kubeconfigPath });
    try {
      proxy.reset();
      for (const n of ["one", "two"]) await client.create(resources.ApplicationSets, listAppSet(n, ns, [`${n}-a`, `${n}-b`]));
      await waitForConditions(client, ns, "one", SUCCESS);
      await waitForConditions(client, ns, "two", SUCCESS);
      await settle(run);
      expect(proxy.writes("applications").sort()).toEqual([
        "POST applications",
        "POST applications",
        "POST applications",
        "POST applications",
      ]);

      proxy.reset();
      for (let i = 0; i < 3; i++) {
        for (const n of ["one", "two"]) run.controller.queue.add(`${ns}/${n}`);
        await settle(run);
      }
      await client.patch(
        resources.ApplicationSets,
        { namespace: ns, name: "one" },
        { type: "merge", body: { metadata: { annotations: { note: "unrelated" } } } },
      );
      await eventually("the annotation seen", () =>
        Promise.resolve(run.controller.appSets.get(ns, "one")?.metadata.annotations?.["note"] === "unrelated" ? true : undefined),
      );
      await settle(run);
      expect(proxy.writes()).toEqual([]);
    } finally {
      await run.stop();
    }
  });

  it("retries an update the apiserver refuses with 409 Conflict from a fresh read, keeping what changed meanwhile, and never writes from an older version again", async () => {
    const ns = await namespace("ctl-wr-conflict");
    // The Application watch delivers nothing, as if its events were always late: the cache knows an
    // Application only from the initial list and from what the controller's own writes returned.
    const appWrites = (): Array<number | undefined> =>
      proxy.requests
        .filter((r) => r.resource === "applications" && r.path.includes(`/namespaces/${ns}/`) && r.method !== "GET")
        .map((r) => r.status);
    proxy.mute((r) => r.resource === "applications" && r.path.includes(`/namespaces/${ns}/`));
    const run = await startController({ namespace: ns, kubeconfigPath: proxy.kubeconfigPath });
    try {
      const set = listAppSet("web", ns, ["a"]);
      await client.create(resources.ApplicationSets, set);
      await waitForConditions(client, ns, "web", SUCCESS);
      await requeueAndSettle(run, ns);
      expect(appWrites()).toEqual([201]);
      proxy.reset();
      const held = proxy.holdNext((r) => r.method === "PATCH" && r.target === "applications/a");
      const template = (set["spec"] as { template: { spec: { source: Record<string, unknown> } } }).template;
      const source = { ...template.spec.source, targetRevision: "v2" };
      await client.patch(
        resources.ApplicationSets,
        { namespace: ns, name: "web" },
        { type: "merge", body: { spec: { template: { ...template, spec: { ...template.spec, source } } } } },
      );
      const first = await held.arrived;
      const notified = { "notified.notifications.argoproj.io": "meanwhile" };
      await client.patch(
        resources.Applications,
        { namespace: ns, name: "a" },
        { type: "merge", body: { metadata: { annotations: notified } } },
      );
      held.release();
      const a = await eventually("a updated", async () => {
        const app = (await applications(client, ns)).get("a");
        return app?.spec.source?.targetRevision === "v2" ? app : undefined;
      });
      expect(a.metadata.annotations).toEqual(notified);
      await requeueAndSettle(run, ns);
      expect(first.status).toBe(409);
      // One write succeeded, on top of the fresh read; the passes after it read that write's answer
      // from the cache, so none sends a PATCH with the old resourceVersion.
      expect(appWrites()).toEqual([409, 200]);
      await waitForConditions(client, ns, "web", SUCCESS);
    } finally {
      proxy.unmute();
      await run.stop();
    }
  });

  it("removes the refresh annotation with a merge patch locked to the resourceVersion: a change in between is refused with 409 and the removal retried", async () => {
    const ns = await namespace("ctl-wr-refresh");
    const key = { namespace: ns, name: "web" };
    const metadataPatch = (r: { method: string; target: string; path: string }): boolean =>
      r.method === "PATCH" && r.target === "applicationsets/web" && r.path.includes(`/namespaces/${ns}/`);
    const run = await startController({ namespace: ns, kubeconfigPath: proxy.kubeconfigPath });
    try {
      await client.create(resources.ApplicationSets, listAppSet("web", ns, ["a"]));
      await waitForConditions(client, ns, "web", SUCCESS);
      await settle(run);
      proxy.reset();
      const held = proxy.holdNext(metadataPatch);
      await client.patch(resources.ApplicationSets, key, {
        type: "merge",
        body: { metadata: { annotations: { "argocd.argoproj.io/application-set-refresh": "true" } } },
      });
      await held.arrived;
      // Another writer changes the ApplicationSet while the controller's removal is on its way.
      await client.patch(resources.ApplicationSets, key, { type: "merge", body: { metadata: { labels: { meanwhile: "yes" } } } });
      held.release();
      const removed = await eventually("the refresh annotation removed", async () => {
        const a = await readAppSet(client, ns, "web");
        return a.metadata.annotations?.["argocd.argoproj.io/application-set-refresh"] === undefined ? a : undefined;
      });
      await settle(run);
      expect(proxy.requests.filter(metadataPatch).map((r) => r.status)).toEqual([409, 200]);
      expect(removed.metadata.labels?.["meanwhile"]).toBe("yes");
      await waitForConditions(client, ns, "web", SUCCESS);
    } finally {
      await run.stop();
    }
  });

  it("with --cache-sync-period relists, so an ApplicationSet whose watch events are lost is still reconciled, and relists of a converged state write nothing", async () => {
    const ns = await namespace("ctl-wr-resync");
    proxy.mute((r) => r.resource === "applicationsets" && r.path.includes(`/namespaces/${ns}/`));
    try {
      const p = spawnThroughProxy(ns, ["--cache-sync-period", "2s"]);
      await p.waitForLog("caches synced, starting workers");
      const createdAt = proxy.requests.length;
      await client.create(resources.ApplicationSets, listAppSet("web", ns, ["a", "b"]));
      await eventually("the Applications", async () => ((await applications(client, ns)).size === 2 ? true : undefined), 30_000);
      const relists = (from: number): number =>
        proxy.requests.slice(from).filter((r) => r.resource === "applicationsets" && r.method === "GET" && r.query.get("watch") !== "true")
          .length;
      expect(relists(createdAt)).toBeGreaterThanOrEqual(1);

      // Once converged, further relists of every cache send no write at all.
      await waitForConditions(client, ns, "web", SUCCESS);
      const converged = proxy.requests.length;
      await eventually("two more relists", () => Promise.resolve(relists(converged) >= 2 ? true : undefined));
      expect(
        proxy.requests
          .slice(converged)
          .filter((r) => ["POST", "PUT", "PATCH", "DELETE"].includes(r.method) && r.path.includes(`/namespaces/${ns}/`)),
      ).toEqual([]);
      p.child.kill("SIGTERM");
      expect(await p.exited).toBe(0);
    } finally {
      proxy.unmute();
    }
  });

  it("uses a repository Secret's new password on the next reconcile, without a restart", async () => {
    const ns = await namespace("ctl-wr-creds");
    const work = makeRepo(temp, { "apps/x/config.json": "{}", "apps/y/config.json": "{}" });
    const root = temp.make("appset-served-");
    git(root, "clone", "-q", "--bare", work, join(root, "repo.git"));
    const server: GitHttpServer = await serveGitHttp(root, { username: "alice", password: "s3cret" });
    try {
      const url = `${server.url}/repo.git`;
      const secret = (password: string) => ({
        apiVersion: "v1",
        kind: "Secret",
        metadata: { name: "repo", namespace: ns, labels: { "argocd.argoproj.io/secret-type": "repository" } },
        stringData: { url, username: "alice", password },
      });
      await client.create(resources.Secrets, secret("wrong"));
      const p = spawnThroughProxy(ns);
      await p.waitForLog("caches synced, starting workers");
      const set = listAppSet("web", ns, []);
      const spec = set["spec"] as Record<string, unknown>;
      spec["generators"] = [{ git: { repoURL: url, revision: "main", directories: [{ path: "apps/*" }] } }];
      spec["template"] = {
        metadata: { name: "{{path.basename}}" },
        spec: {
          project: "default",
          source: { repoURL: url, path: "{{path}}" },
          destination: { server: "https://kubernetes.default.svc", namespace: "x" },
        },
      };
      await client.create(resources.ApplicationSets, set);
      const failed = await eventually("the generator error", async () => {
        const rows = conditionRows(await readAppSet(client, ns, "web"));
        return rows.find((r) => r[0] === "ErrorOccurred" && r[1] === "True");
      });
      expect(failed[2]).toBe("ApplicationGenerationFromParamsError");
      expect(failed[3]).toMatch(
        /^error generating params from git: error getting directories from git: error retrieving Git Directories: rpc error: code = Internal desc = unable to resolve git revision : failed to list refs: /,
      );

      await client.patch(
        resources.Secrets,
        { namespace: ns, name: "repo" },
        { type: "merge", body: { stringData: { password: "s3cret" } } },
      );
      await client.patch(
        resources.ApplicationSets,
        { namespace: ns, name: "web" },
        { type: "merge", body: { metadata: { annotations: { "argocd.argoproj.io/application-set-refresh": "true" } } } },
      );
      await waitForConditions(client, ns, "web", SUCCESS);
      expect([...(await applications(client, ns)).keys()].sort()).toEqual(["x", "y"]);
      p.child.kill("SIGTERM");
      expect(await p.exited).toBe(0);
    } finally {
      await server.stop();
    }
  });
});
