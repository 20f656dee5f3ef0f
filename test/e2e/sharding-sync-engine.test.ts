/**
 * The sync engine sharded by Application on the real control plane (docs/sharding.md#the-sync-engine):
 * two `appset controller --enable-sharding --enable-sync-engine` processes, no leader election, and
 * ten Applications with a sync operation each. Every Application is synced (its operation Succeeded,
 * its ConfigMap deployed) by exactly one replica: the one the assignment rule names. Who synced what is
 * read from each replica's "sync step" lines, which carry its identity as `replica`.
 */
import { afterAll, describe, expect, it } from "vitest";
import { resources, type KubeObject } from "../../src/kube/index.js";
import { ownerOf } from "../../src/shard/index.js";
import { makeRepo } from "../integration/support/git-repos.js";
import { ALLOW_LOCAL_REPOSITORIES_ENV } from "../support/vitest-setup.js";
import { eventually, processArgs, spawnController, type ControllerProcess } from "./support/controller.js";
import { e2eSuite } from "./support/suite.js";

const suite = e2eSuite();
const APPS = 10;

// Registered after e2eSuite's: runs first, so every process is gone before its namespace is deleted.
afterAll(async () => {
  for (const p of suite.procs) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill("SIGKILL");
  await Promise.all(suite.procs.map((p) => p.exited));
});

/** The child processes' environment, without Argo CD settings of the test's own, reading local repositories. */
const childEnv: NodeJS.ProcessEnv = {
  ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("ARGOCD_"))),
  [ALLOW_LOCAL_REPOSITORIES_ENV]: "true",
};

const configMap = (name: string): string => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\ndata:\n  app: ${name}\n`;

/** An Application of `namespace` deploying `<repo>/<name>` into its own namespace, with a sync operation. */
function application(namespace: string, name: string, repo: string): KubeObject {
  return {
    apiVersion: "argoproj.io/v1alpha1",
    kind: "Application",
    metadata: { name, namespace },
    spec: {
      project: "default",
      source: { repoURL: `file://${repo}`, targetRevision: "main", path: name },
      destination: { server: "https://kubernetes.default.svc", namespace },
    },
    operation: { sync: {}, initiatedBy: { username: "e2e" } },
  };
}

interface AppView extends KubeObject {
  status?: { operationState?: { phase?: string } };
}

/** The Applications whose sync step a replica logged as Succeeded, with the `replica` field of each line. */
function syncedBy(p: ControllerProcess): Array<{ app: string; replica: unknown }> {
  return p.logs
    .filter((l) => l["msg"] === "sync step" && l["phase"] === "Succeeded")
    .map((l) => ({ app: String(l["app"]), replica: l["replica"] }));
}

describe("the sync engine in sharded replicas", () => {
  it(`syncs each of ${String(APPS)} Applications in exactly one of two replicas`, async () => {
    const client = suite.client();
    const ns = await suite.namespace("shard-sync");
    const names = Array.from({ length: APPS }, (_, i) => `app-${String(i)}`);
    const repo = makeRepo(suite.temp, Object.fromEntries(names.map((n) => [`${n}/cm.yaml`, configMap(`cm-${n}`)])));
    const replicas = [0, 1].map(() => {
      const cache = ["--git-cache-dir", suite.temp.make("shard-git-cache-")];
      const p = spawnController(processArgs(ns, "--enable-sharding", "--enable-sync-engine", ...cache), "controller", undefined, childEnv);
      suite.procs.push(p);
      return p;
    });
    // Both replicas see two members, themselves among them, before any Application exists.
    await eventually(
      "two members seen by every replica",
      () =>
        Promise.resolve(
          replicas.every((r) =>
            r.logs.some(
              (l) => l["msg"] === "shard group members changed" && (l["members"] as string[]).length === 2 && l["selfLive"] === true,
            ),
          )
            ? true
            : undefined,
        ),
      60_000,
    );
    for (const name of names) await client.create(resources.Applications, application(ns, name, repo));
    await eventually(
      "every Application synced",
      async () => {
        const apps = await Promise.all(names.map((name) => client.get<AppView>(resources.Applications, { namespace: ns, name })));
        return apps.every((a) => a.status?.operationState?.phase === "Succeeded") ? true : undefined;
      },
      90_000,
    );
    for (const name of names) expect(await client.get(resources.ConfigMaps, { namespace: ns, name: `cm-${name}` })).toBeDefined();

    const identities = replicas.map((r) => {
      const joined = r.logs.find((l) => l["msg"] === "shard group members changed");
      return String(joined?.["replica"]);
    });
    const byReplica = replicas.map(syncedBy);
    // Every line names the replica that wrote it.
    byReplica.forEach((lines, i) => lines.forEach((l) => expect(l.replica).toBe(identities[i])));
    const owners = new Map<string, number[]>();
    byReplica.forEach((lines, i) => lines.forEach((l) => owners.set(l.app, [...(owners.get(l.app) ?? []), i])));
    expect([...owners.keys()].sort()).toEqual([...names].sort());
    expect([...owners.entries()].filter(([, o]) => o.length !== 1)).toEqual([]);
    // Each replica synced exactly the Applications the assignment rule gives it.
    const assigned = identities.map((id) => names.filter((n) => ownerOf(`${ns}/${n}`, identities) === id).sort());
    expect(byReplica.map((lines) => [...new Set(lines.map((l) => l.app))].sort())).toEqual(assigned);
    // Each replica's metrics count the Applications (and ApplicationSets: none here) it owns.
    for (const [i, r] of replicas.entries()) {
      const start = r.logs.find((l) => l["msg"] === "applicationset controller starting")!;
      const scrape = await (await fetch(`${String(start["metrics"])}/metrics`)).text();
      expect(scrape).toContain(`appset_shard_owned_applications ${String(assigned[i]!.length)}\n`);
      expect(scrape).toContain("appset_shard_owned_applicationsets 0\n");
      expect(scrape).toContain("appset_shard_members 2\n");
    }
    console.log(
      `sharded sync engine: replicas synced ${byReplica.map((l) => String(l.length)).join(" and ")} of ${String(APPS)} Applications`,
    );
    for (const r of replicas) expect(r.child.exitCode).toBeNull();
  }, 180_000);

  it("exports the members and the owned Applications from a stand-alone sharded sync engine", async () => {
    const client = suite.client();
    const ns = await suite.namespace("shard-engine");
    const names = ["one", "two", "three"];
    const repo = makeRepo(suite.temp, Object.fromEntries(names.map((n) => [`${n}/cm.yaml`, configMap(`cm-${n}`)])));
    for (const name of names) {
      const { operation: _, ...app } = application(ns, name, repo) as KubeObject & { operation: unknown };
      await client.create(resources.Applications, app);
    }
    const cache = ["--git-cache-dir", suite.temp.make("shard-git-cache-")];
    const p = spawnController(processArgs(ns, "--enable-sharding", ...cache), "sync-engine", undefined, childEnv);
    suite.procs.push(p);
    const start = await p.waitForLog("sync engine starting");
    const scrape = (): Promise<string> => fetch(`${String(start["metrics"])}/metrics`).then((r) => r.text());
    // Alone in its group, it owns every Application once it counts itself live (a renew deadline after joining).
    const text = await eventually(
      "the replica counting itself and owning the three Applications",
      async () => {
        const t = await scrape();
        return t.includes("appset_shard_members 1\n") && t.includes(`appset_shard_owned_applications ${String(names.length)}\n`)
          ? t
          : undefined;
      },
      60_000,
    );
    expect(text).toContain("appset_shard_membership_changes_total");
    expect(text).not.toContain("appset_shard_owned_applicationsets");
    expect(p.child.exitCode).toBeNull();
  }, 120_000);
});
