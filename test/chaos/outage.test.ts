/**
 * Outages of what the generators read, and bursts of edits. A Git repository that disappears, and
 * one whose HEAD is corrupted, and a plugin server that stops answering, each for 15 s: a condition
 * within 5 s, no Application deleted, recovery within 20 s of the return. 300 edits of one
 * ApplicationSet at 50 a second: the last one wins, nothing is lost.
 */
import { readFileSync, renameSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { resources, type KubeObject } from "../../src/kube/index.js";
import { controllerNamespace, processArgs, spawnController, type ControllerProcess } from "../e2e/support/controller.js";
import { makeRepo } from "../integration/support/git-repos.js";
import { View } from "./support/view.js";
import { chaosPlane, sleep } from "./support/plane.js";

const plane = chaosPlane();
const CONDITION_WITHIN_MS = 5_000;
const RECOVER_WITHIN_MS = 20_000;
const OUTAGE_MS = 15_000;

function appSet(ns: string, name: string, generators: unknown[], nameTemplate: string): KubeObject {
  return {
    apiVersion: "argoproj.io/v1alpha1",
    kind: "ApplicationSet",
    metadata: { name, namespace: ns },
    spec: {
      generators,
      template: {
        metadata: { name: nameTemplate },
        spec: {
          project: "default",
          source: { repoURL: "https://example.com/apps.git", targetRevision: "HEAD", path: "." },
          destination: { server: "https://kubernetes.default.svc", namespace: "apps" },
        },
      },
    },
  };
}

async function controller(ns: string): Promise<ControllerProcess> {
  const ctl = spawnController(processArgs(ns), "controller", plane.cp().kubeconfigPath);
  plane.procs.push(ctl);
  await ctl.waitForLog("caches synced, starting workers");
  return ctl;
}

/** Runs `fn` with a controller for `ns` and a view of it; stops both whatever happens. */
async function running(ns: string, fn: (view: View, ctl: ControllerProcess) => Promise<void>): Promise<void> {
  const ctl = await controller(ns);
  const view = await View.start(plane.client(), ns);
  try {
    await fn(view, ctl);
  } finally {
    view.stop();
    ctl.child.kill("SIGTERM");
    await ctl.exited;
  }
}

/** One outage: how long until the condition, the Applications deleted meanwhile, how long to recover. */
async function outage(view: View, name: string, expected: readonly string[], breakIt: () => void, repair: () => void) {
  const deletedBefore = view.deleted.length;
  breakIt();
  const condition = await view.within(OUTAGE_MS, () => view.errorOf(name) !== undefined);
  const message = view.errorOf(name);
  await sleep(Math.max(0, OUTAGE_MS - (condition ?? OUTAGE_MS)));
  repair();
  const recovered = await view.within(RECOVER_WITHIN_MS, () => view.upToDate(name) && view.errorOf(name) === undefined);
  const deleted = view.deleted.slice(deletedBefore);
  const present = expected.filter((a) => view.apps.has(a));
  return { condition, message, recovered, deleted, present };
}

describe("outages and edit bursts", () => {
  it("a Git repository gone, then corrupted, for 15 s each: a condition, nothing deleted, recovery", async () => {
    const client = plane.client();
    const ns = await controllerNamespace(client, "chaos-git");
    const dir = makeRepo(plane.temp, { "apps/a/app.yaml": "a: 1\n", "apps/b/app.yaml": "b: 1\n" });
    await running(ns, async (view, ctl) => {
      const gen = { git: { repoURL: `file://${dir}`, revision: "HEAD", directories: [{ path: "apps/*" }], requeueAfterSeconds: 1 } };
      await client.create(resources.ApplicationSets, appSet(ns, "from-git", [gen], "git-{{path.basename}}"));
      const expected = ["git-a", "git-b"];
      expect(await view.within(60_000, () => expected.every((a) => view.apps.has(a)))).toBeDefined();
      const gone = await outage(
        view,
        "from-git",
        expected,
        () => renameSync(dir, `${dir}.away`),
        () => renameSync(`${dir}.away`, dir),
      );
      const head = join(dir, ".git", "HEAD");
      const original = readFileSync(head, "utf8");
      const corrupted = await outage(
        view,
        "from-git",
        expected,
        () => writeFileSync(head, "not a ref\n"),
        () => writeFileSync(head, original),
      );
      for (const [what, o] of [
        ["gone", gone],
        ["corrupted", corrupted],
      ] as const)
        console.log(
          `chaos git ${what}: condition after ${String(Math.round(o.condition ?? -1))} ms (${String(o.message)}), ` +
            `${String(o.deleted.length)} deleted, recovered ${String(Math.round(o.recovered ?? -1))} ms after the repair`,
        );
      for (const o of [gone, corrupted]) {
        expect(o.condition).toBeLessThanOrEqual(CONDITION_WITHIN_MS);
        expect(o.deleted).toEqual([]);
        expect(o.recovered).toBeDefined();
        expect(o.present).toEqual(expected);
      }
      expect(ctl.child.exitCode).toBeNull();
    });
  }, 300_000);

  it("a plugin server down for 15 s: a condition, nothing deleted, recovery", async () => {
    const client = plane.client();
    const ns = await controllerNamespace(client, "chaos-plugin");
    const sockets = new Set<Socket>();
    const serve = (port: number): Promise<Server> =>
      new Promise((resolve) => {
        const server = createServer((req, res) => {
          req.resume();
          req.on("end", () => {
            res.setHeader("content-type", "application/json");
            res.end(JSON.stringify({ output: { parameters: [{ app: "one" }, { app: "two" }] } }));
          });
        });
        server.on("connection", (s) => {
          sockets.add(s);
          s.on("close", () => sockets.delete(s));
        });
        server.listen(port, "127.0.0.1", () => resolve(server));
      });
    let server = await serve(0);
    const port = (server.address() as AddressInfo).port;
    const stop = (): void => {
      server.close();
      for (const s of sockets) s.destroy();
    };
    await client.create(resources.Secrets, {
      apiVersion: "v1",
      kind: "Secret",
      metadata: { name: "plugin-token", namespace: ns, labels: { "app.kubernetes.io/part-of": "argocd" } },
      stringData: { token: "s3cret" },
    });
    await client.create(resources.ConfigMaps, {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: { name: "plugin-config", namespace: ns },
      data: { token: "$plugin-token:token", baseUrl: `http://127.0.0.1:${String(port)}` },
    });
    await running(ns, async (view, ctl) => {
      const gen = { plugin: { configMapRef: { name: "plugin-config" }, requeueAfterSeconds: 1 } };
      await client.create(resources.ApplicationSets, appSet(ns, "from-plugin", [gen], "plugin-{{app}}"));
      const expected = ["plugin-one", "plugin-two"];
      expect(await view.within(60_000, () => expected.every((a) => view.apps.has(a)))).toBeDefined();
      let restarted: Promise<Server> | undefined;
      const o = await outage(view, "from-plugin", expected, stop, () => {
        restarted = serve(port);
      });
      server = await restarted!;
      console.log(
        `chaos plugin down: condition after ${String(Math.round(o.condition ?? -1))} ms (${String(o.message)}), ` +
          `${String(o.deleted.length)} deleted, recovered ${String(Math.round(o.recovered ?? -1))} ms after the restart`,
      );
      expect(o.condition).toBeLessThanOrEqual(CONDITION_WITHIN_MS);
      expect(o.deleted).toEqual([]);
      expect(o.recovered).toBeDefined();
      expect(o.present).toEqual(expected);
      expect(ctl.child.exitCode).toBeNull();
    }).finally(stop);
  }, 300_000);

  it("300 edits at 50 a second: the last one wins and nothing is lost", async () => {
    const client = plane.client();
    const ns = await controllerNamespace(client, "chaos-burst");
    const EDITS = 300;
    const elements = (k: number) => Array.from({ length: (k % 5) + 1 }, (_, i) => ({ name: `burst-${String(i)}`, edit: String(k) }));
    const spec = (k: number) => ({ generators: [{ list: { elements: elements(k) } }] });
    await running(ns, async (view, ctl) => {
      const set = appSet(ns, "burst", spec(0).generators, "{{name}}");
      (set["spec"] as { template: { metadata: Record<string, unknown> } }).template.metadata["labels"] = { edit: "{{edit}}" };
      await client.create(resources.ApplicationSets, set);
      const started = performance.now();
      for (let k = 1; k <= EDITS; k++) {
        await client.patch(resources.ApplicationSets, { namespace: ns, name: "burst" }, { type: "merge", body: { spec: spec(k) } });
        const due = started + k * 20;
        await sleep(Math.max(0, due - performance.now()));
      }
      const rate = EDITS / ((performance.now() - started) / 1000);
      const want = elements(EDITS).map((e) => e.name);
      const settled = await view.within(20_000, () => {
        const names = [...view.apps.keys()].sort();
        return (
          names.length === want.length &&
          names.every((n, i) => n === want[i] && view.apps.get(n)?.metadata?.labels?.["edit"] === String(EDITS))
        );
      });
      console.log(
        `chaos burst: ${String(EDITS)} edits at ${rate.toFixed(1)}/s, the last one applied ${String(Math.round(settled ?? -1))} ms after it`,
      );
      if (settled === undefined) {
        const apps = [...view.apps.values()].map((a) => `${a.metadata?.name ?? ""}@${a.metadata?.labels?.["edit"] ?? ""}`);
        const conditions = JSON.stringify([...(view.conditions.get("burst") ?? new Map())]);
        const logs = ctl.logs.slice(-20).map((l) => JSON.stringify(l).slice(0, 400));
        throw new Error(`the last edit was not applied: Applications ${apps.join(" ")}; conditions ${conditions}\n${logs.join("\n")}`);
      }
      expect(ctl.child.exitCode).toBeNull();
    });
  }, 300_000);
});
