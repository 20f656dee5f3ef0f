/**
 * How the controller writes Applications, on the real control plane
 * (docs/controller.md#creating-and-updating-applications): preserved annotations, labels and
 * finalizers keep their live values through the controller's own updates while every other live
 * change is reverted; `ignoreApplicationDifferences` (JSON pointers, jq paths, a rule limited to
 * one name) leaves the ignored fields alone and sends no write for them;
 * `--max-resources-status-count` truncates `status.resources` but not `resourcesCount`; an
 * Application whose destination cluster is gone loses the resources finalizer before it is deleted,
 * so it goes.
 */
import { beforeAll, describe, expect, it } from "vitest";
import type { Application } from "../../src/api/index.js";
import { resources, type KubeApiClient } from "../../src/kube/index.js";
import { applications, eventually, listAppSet, readAppSet } from "./support/controller.js";
import { settle, SUCCESS, waitForConditions, waitForNames } from "./support/controller-wait.js";
import { e2eSuite } from "./support/suite.js";

const { client: suiteClient, setup } = e2eSuite();
let client: KubeApiClient;

beforeAll(() => {
  client = suiteClient();
});

async function app(ns: string, name: string): Promise<Application> {
  const found = (await applications(client, ns)).get(name);
  if (found === undefined) throw new Error(`no Application ${name}`);
  return found;
}

async function until(ns: string, name: string, what: string, ok: (a: Application) => boolean): Promise<Application> {
  return eventually(what, async () => {
    const a = await app(ns, name);
    return ok(a) ? a : undefined;
  });
}

function patchApp(ns: string, name: string, body: Record<string, unknown>): Promise<unknown> {
  return client.patch(resources.Applications, { namespace: ns, name }, { type: "merge", body });
}

function patchAppSet(ns: string, name: string, body: Record<string, unknown>): Promise<unknown> {
  return client.patch(resources.ApplicationSets, { namespace: ns, name }, { type: "merge", body });
}

const SOURCE = { repoURL: "https://github.com/argoproj/argocd-example-apps", path: "guestbook", targetRevision: "HEAD" };

describe("the Applications the controller writes", () => {
  it("keeps the live values of preserved annotations, labels and finalizers, and reverts every other live change", async () => {
    const { ns, run } = await setup("ctl-keep", {
      settings: { preservedAnnotations: ["global.example.com/note"], preservedLabels: ["global-label"] },
    });
    try {
      await client.create(
        resources.ApplicationSets,
        listAppSet("web", ns, ["a"], { preservedFields: { annotations: ["own.example.com/note"], labels: ["own-label"] } }),
      );
      await waitForNames(client, ns, ["a"]);
      const annotations = {
        "own.example.com/note": "u1",
        "global.example.com/note": "u2",
        "notified.notifications.argoproj.io": "{}",
        "argocd.argoproj.io/refresh": "normal",
        "argocd.argoproj.io/hydrate": "normal",
      };
      const finalizers = [
        "resources-finalizer.argocd.argoproj.io",
        "pre-delete-finalizer.argocd.argoproj.io/cleanup",
        "post-delete-finalizer.argocd.argoproj.io",
      ];
      await patchApp(ns, "a", {
        metadata: {
          annotations: { ...annotations, "stray.example.com/x": "drop" },
          labels: { "own-label": "u", "global-label": "u", "stray-label": "drop" },
          finalizers: [...finalizers, "stray.example.com/finalizer"],
        },
      });
      const expectKept = (a: Application): void => {
        expect(a.metadata.annotations).toEqual(annotations);
        expect(a.metadata.labels).toEqual({ app: "a", "own-label": "u", "global-label": "u" });
        expect(a.metadata.finalizers).toEqual(finalizers);
      };
      expectKept(
        await until(ns, "a", "the stray annotation reverted", (a) => a.metadata.annotations?.["stray.example.com/x"] === undefined),
      );

      const set = await readAppSet(client, ns, "web");
      await patchAppSet(ns, "web", {
        spec: { template: { ...set.spec.template, spec: { ...set.spec.template.spec, source: { ...SOURCE, targetRevision: "v2" } } } },
      });
      expectKept(await until(ns, "a", "the template update", (a) => a.spec.source?.targetRevision === "v2"));
      await settle(run);
    } finally {
      await run.stop();
    }
  });

  it("leaves the fields of ignoreApplicationDifferences alone, per rule and per name, and writes nothing for them", async () => {
    const ignore = [{ jsonPointers: ["/spec/source/targetRevision"] }, { name: "b", jqPathExpressions: [".spec.source.path"] }];
    const { ns, run } = await setup("ctl-ignore");
    try {
      await client.create(resources.ApplicationSets, listAppSet("web", ns, ["a", "b"], { ignoreApplicationDifferences: ignore }));
      await waitForNames(client, ns, ["a", "b"]);
      await waitForConditions(client, ns, "web", SUCCESS);
      await settle(run);
      run.client.reset();
      for (const n of ["a", "b"]) await patchApp(ns, n, { spec: { source: { targetRevision: "user-rev", path: "user-path" } } });
      await until(ns, "a", "a's path reverted", (a) => a.spec.source?.path === "guestbook");
      await settle(run);
      expect((await app(ns, "a")).spec.source).toEqual({ ...SOURCE, targetRevision: "user-rev" });
      expect((await app(ns, "b")).spec.source).toEqual({ ...SOURCE, targetRevision: "user-rev", path: "user-path" });
      expect(run.client.writes.filter((w) => w.includes("applications/"))).toEqual(["patch applications/a"]);

      const set = await readAppSet(client, ns, "web");
      const destination = { server: "https://kubernetes.default.svc", namespace: "{{name}}-v2" };
      await patchAppSet(ns, "web", { spec: { template: { ...set.spec.template, spec: { ...set.spec.template.spec, destination } } } });
      const b = await until(ns, "b", "b's new destination", (x) => x.spec.destination.namespace === "b-v2");
      expect(b.spec.source).toEqual({ ...SOURCE, targetRevision: "user-rev", path: "user-path" });
      expect(
        (await until(ns, "a", "a's new destination", (x) => x.spec.destination.namespace === "a-v2")).spec.source?.targetRevision,
      ).toBe("user-rev");
    } finally {
      await run.stop();
    }
  });

  it("truncates status.resources to --max-resources-status-count, sorted by name, and counts them all", async () => {
    const { ns, run } = await setup("ctl-maxres", { settings: { maxResourcesStatusCount: 2 } });
    try {
      await client.create(resources.ApplicationSets, listAppSet("web", ns, ["c", "a", "b"]));
      const status = await eventually("the resources status", async () => {
        const s = (await readAppSet(client, ns, "web")).status;
        return s?.resourcesCount === 3 ? s : undefined;
      });
      expect(status.resources?.map((r) => [r.kind, r.name, r.namespace])).toEqual([
        ["Application", "a", ns],
        ["Application", "b", ns],
      ]);
      await waitForNames(client, ns, ["a", "b", "c"]);
    } finally {
      await run.stop();
    }
  });

  it("removes the resources finalizer of a stale Application whose destination cluster is gone, then deletes it, with both events", async () => {
    const { ns, run } = await setup("ctl-gone");
    try {
      const set = listAppSet("per-cluster", ns, []);
      const spec = set["spec"] as Record<string, unknown>;
      spec["generators"] = [{ clusters: { selector: { matchLabels: { env: "prod" } } } }];
      spec["template"] = {
        metadata: { name: "{{name}}-app" },
        spec: {
          project: "default",
          source: { repoURL: "https://example.com/repo", path: "p" },
          destination: { server: "{{server}}", namespace: "x" },
        },
      };
      await client.create(resources.Secrets, {
        apiVersion: "v1",
        kind: "Secret",
        metadata: { name: "prod-1", namespace: ns, labels: { "argocd.argoproj.io/secret-type": "cluster", env: "prod" } },
        stringData: { name: "prod-1", server: "https://prod-1.example.com" },
      });
      await client.create(resources.ApplicationSets, set);
      await waitForNames(client, ns, ["prod-1-app"]);
      expect((await app(ns, "prod-1-app")).metadata.finalizers).toEqual(["resources-finalizer.argocd.argoproj.io"]);

      await client.delete(resources.Secrets, { namespace: ns, name: "prod-1" });
      await waitForNames(client, ns, []);
      const events = await eventually("events", async () => {
        const list = await client.list(resources.Events, { namespace: ns });
        const lines = list.items.map((e) => `${String(e["reason"])}: ${String(e["message"])}`);
        return lines.includes('Deleted: Deleted Application "prod-1-app"') ? lines : undefined;
      });
      expect(events).toContain(
        'Updated: Updated Application "prod-1-app" finalizer before deletion, because application has an invalid destination',
      );
      await waitForConditions(client, ns, "per-cluster", SUCCESS);
    } finally {
      await run.stop();
    }
  });
});
