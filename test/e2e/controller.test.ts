/**
 * The ApplicationSet controller on the real control plane, run in-process: it creates, updates and
 * deletes Applications as the ApplicationSet declares, with Argo CD's conditions verbatim; a resync
 * after convergence sends no write; a failing generator deletes nothing; invalid Applications get the
 * spec's message and are not created; policies, the deletion path, the refresh annotation, dry run
 * and events behave as the spec says.
 */
import { setTimeout as sleep } from "node:timers/promises";
import { beforeAll, describe, expect, it } from "vitest";
import { resources, type KubeApiClient } from "../../src/kube/index.js";
import {
  applications,
  conditionRows,
  controllerNamespace,
  eventually,
  listAppSet,
  readAppSet,
  startController,
} from "./support/controller.js";
import { appNames, settle, SUCCESS, waitForConditions, waitForNames } from "./support/controller-wait.js";
import { e2eSuite } from "./support/suite.js";

const OK = "All applications have been generated successfully";

const { client: suiteClient, namespaces, setup } = e2eSuite();
let client: KubeApiClient;

beforeAll(() => {
  client = suiteClient();
});

describe("the ApplicationSet controller", () => {
  it("creates, updates and deletes Applications as the ApplicationSet declares, with the success conditions and events", async () => {
    const { ns, run } = await setup("ctl-crud");
    try {
      await client.create(resources.ApplicationSets, listAppSet("web", ns, ["a", "b"]));
      await waitForNames(client, ns, ["a", "b"]);
      await waitForConditions(client, ns, "web", SUCCESS);
      const a = (await applications(client, ns)).get("a")!;
      expect(a.metadata.ownerReferences).toEqual([
        expect.objectContaining({ kind: "ApplicationSet", name: "web", controller: true, blockOwnerDeletion: true }),
      ]);
      expect(a.metadata.finalizers).toEqual(["resources-finalizer.argocd.argoproj.io"]);
      const status = (await readAppSet(client, ns, "web")).status;
      expect(status?.resourcesCount).toBe(2);
      expect(status?.health).toEqual({ status: "Healthy", message: OK });

      const set = await readAppSet(client, ns, "web");
      await client.patch(
        resources.ApplicationSets,
        { namespace: ns, name: "web" },
        {
          type: "merge",
          body: {
            spec: {
              generators: [{ list: { elements: [{ name: "a" }, { name: "c" }] } }],
              template: {
                ...set.spec.template,
                spec: {
                  ...set.spec.template.spec,
                  source: { repoURL: "https://github.com/argoproj/argocd-example-apps", path: "guestbook", targetRevision: "v2" },
                },
              },
            },
          },
        },
      );
      // b keeps its resources finalizer (no Application controller runs here), so it stays terminating.
      await eventually("b deleted", async () => ((await applications(client, ns)).get("b")?.metadata.deletionTimestamp ? true : undefined));
      await waitForNames(client, ns, ["a", "b", "c"]);
      await eventually("a updated", async () =>
        (await applications(client, ns)).get("a")?.spec.source?.targetRevision === "v2" ? true : undefined,
      );

      const events = await eventually("events", async () => {
        const list = await client.list(resources.Events, { namespace: ns });
        const lines = list.items.map((e) => `${String(e["reason"])}: ${String(e["message"])}`);
        return lines.includes('Deleted: Deleted Application "b"') ? lines : undefined;
      });
      expect(events).toEqual(
        expect.arrayContaining([
          'created: created Application "a"',
          'created: created Application "c"',
          'updated: updated Application "a"',
        ]),
      );
    } finally {
      await run.stop();
    }
  });

  it("sends no write at all when it reconciles again after converging", async () => {
    const { ns, run } = await setup("ctl-noop");
    try {
      for (const n of ["one", "two"]) await client.create(resources.ApplicationSets, listAppSet(n, ns, [`${n}-a`, `${n}-b`, `${n}-c`]));
      await waitForNames(client, ns, ["one-a", "one-b", "one-c", "two-a", "two-b", "two-c"]);
      await waitForConditions(client, ns, "one", SUCCESS);
      await waitForConditions(client, ns, "two", SUCCESS);
      await settle(run);
      run.client.reset();
      for (let i = 0; i < 3; i++) {
        for (const n of ["one", "two"]) run.controller.queue.add(`${ns}/${n}`);
        await settle(run);
      }
      expect(run.client.writes).toEqual([]);
    } finally {
      await run.stop();
    }
  });

  it("deletes nothing and reports the error when a generator fails", async () => {
    const { ns, run } = await setup("ctl-genfail");
    try {
      await client.create(resources.ApplicationSets, listAppSet("web", ns, ["a", "b"]));
      await waitForNames(client, ns, ["a", "b"]);
      await client.patch(
        resources.ApplicationSets,
        { namespace: ns, name: "web" },
        {
          type: "merge",
          body: { spec: { generators: [{ clusterDecisionResource: { configMapRef: "missing-cm", name: "x" } }] } },
        },
      );
      const set = await eventually("the error condition", async () => {
        const s = await readAppSet(client, ns, "web");
        return s.status?.conditions?.some((c) => c.type === "ErrorOccurred" && c.status === "True") ? s : undefined;
      });
      const error = set.status!.conditions!.find((c) => c.type === "ErrorOccurred")!;
      expect(error.reason).toBe("ApplicationGenerationFromParamsError");
      expect(conditionRows(set)).toEqual([
        ["ErrorOccurred", "True", "ApplicationGenerationFromParamsError", error.message],
        ["ParametersGenerated", "False", "ErrorOccurred", error.message],
        ["ResourcesUpToDate", "False", "ErrorOccurred", error.message],
      ]);
      await settle(run);
      expect(await appNames(client, ns)).toEqual(["a", "b"]);
      expect(run.client.writes.filter((w) => w.startsWith("delete"))).toEqual([]);
    } finally {
      await run.stop();
    }
  });

  it("reports an Application whose project does not exist, with the spec's message, and creates only the valid ones", async () => {
    const { ns, run } = await setup("ctl-invalid");
    try {
      const set = listAppSet("web", ns, ["a", "b"]);
      const spec = set["spec"] as { template: { spec: { project: string } } };
      spec.template.spec.project = "{{name}}-proj";
      await client.create(resources.AppProjects, {
        apiVersion: "argoproj.io/v1alpha1",
        kind: "AppProject",
        metadata: { name: "a-proj", namespace: ns },
        spec: {},
      });
      await client.create(resources.ApplicationSets, set);
      const msg = "application references project b-proj which does not exist";
      await waitForConditions(client, ns, "web", [
        ["ErrorOccurred", "True", "ApplicationValidationError", msg],
        ["ParametersGenerated", "True", "ParametersGenerated", "All parameters have been generated successfully"],
        ["ResourcesUpToDate", "False", "ErrorOccurred", msg],
      ]);
      expect(await appNames(client, ns)).toEqual(["a"]);
      await client.create(resources.AppProjects, {
        apiVersion: "argoproj.io/v1alpha1",
        kind: "AppProject",
        metadata: { name: "b-proj", namespace: ns },
        spec: {},
      });
      await waitForNames(client, ns, ["a", "b"]);
      await waitForConditions(client, ns, "web", SUCCESS);
    } finally {
      await run.stop();
    }
  });

  it("under create-only keeps stale Applications, and on deletion leaves them without owner references", async () => {
    const { ns, run } = await setup("ctl-policy");
    try {
      const set = listAppSet("web", ns, ["a", "b"], { syncPolicy: { applicationsSync: "create-only" } });
      (set.metadata as { finalizers?: string[] }).finalizers = ["resources-finalizer.argocd.argoproj.io"];
      await client.create(resources.ApplicationSets, set);
      await waitForNames(client, ns, ["a", "b"]);
      await client.patch(
        resources.ApplicationSets,
        { namespace: ns, name: "web" },
        { type: "merge", body: { spec: { generators: [{ list: { elements: [{ name: "a" }] } }] } } },
      );
      await waitForConditions(client, ns, "web", SUCCESS);
      await settle(run);
      expect(await appNames(client, ns)).toEqual(["a", "b"]);

      await client.delete(resources.ApplicationSets, { namespace: ns, name: "web" });
      await eventually(
        "the ApplicationSet gone",
        async () =>
          await client.get(resources.ApplicationSets, { namespace: ns, name: "web" }).then(
            () => undefined,
            () => true,
          ),
      );
      await sleep(2_000);
      const apps = await applications(client, ns);
      expect([...apps.keys()].sort()).toEqual(["a", "b"]);
      for (const app of apps.values()) expect(app.metadata.ownerReferences ?? []).toEqual([]);
    } finally {
      await run.stop();
    }
  });

  it("removes the refresh annotation after a pass", async () => {
    const { ns, run } = await setup("ctl-refresh");
    try {
      await client.create(resources.ApplicationSets, listAppSet("web", ns, ["a"]));
      await waitForConditions(client, ns, "web", SUCCESS);
      await client.patch(
        resources.ApplicationSets,
        { namespace: ns, name: "web" },
        { type: "merge", body: { metadata: { annotations: { "argocd.argoproj.io/application-set-refresh": "true" } } } },
      );
      await eventually("the annotation removed", async () => {
        const s = await readAppSet(client, ns, "web");
        return s.metadata.annotations?.["argocd.argoproj.io/application-set-refresh"] === undefined ? true : undefined;
      });
    } finally {
      await run.stop();
    }
  });

  it("in dry-run mode generates and validates but persists nothing", async () => {
    const { ns, run } = await setup("ctl-dryrun", { dryRun: true });
    try {
      await client.create(resources.ApplicationSets, listAppSet("web", ns, ["a", "b"]));
      await eventually("dry-run creates sent", () =>
        Promise.resolve(run.client.writes.filter((w) => w.startsWith("create applications/")).length >= 2 ? true : undefined),
      );
      await settle(run);
      expect(await appNames(client, ns)).toEqual([]);
      expect((await readAppSet(client, ns, "web")).status?.conditions).toBeUndefined();
    } finally {
      await run.stop();
    }
  });

  it.each([
    { name: "a glob", pattern: (ctl: string) => `${ctl}-team-*` },
    { name: "a regex with a lookahead", pattern: (ctl: string) => `/^${ctl}-((?!other).)*$/` },
  ])(
    "reconciles ApplicationSets in namespaces allowed by $name, creating their Applications there, and ignores the rest",
    async ({ pattern }) => {
      const ctl = await controllerNamespace(client, "ctl-home");
      namespaces.push(ctl);
      const team = await controllerNamespace(client, `${ctl}-team`);
      const other = await controllerNamespace(client, `${ctl}-other`);
      namespaces.push(team, other);
      const run = await startController({ namespace: ctl, appSetNamespaces: [pattern(ctl)] });
      try {
        await client.create(resources.ApplicationSets, listAppSet("web", team, ["t1"]));
        await client.create(resources.ApplicationSets, listAppSet("web", other, ["o1"]));
        await waitForNames(client, team, ["t1"]);
        await waitForConditions(client, team, "web", SUCCESS);
        await settle(run);
        expect(await appNames(client, other)).toEqual([]);
        expect((await readAppSet(client, other, "web")).status).toBeUndefined();
      } finally {
        await run.stop();
      }
    },
  );

  it("creates Applications for a cluster Secret added after the ApplicationSet", async () => {
    const { ns, run } = await setup("ctl-clusters");
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
      await client.create(resources.ApplicationSets, set);
      await waitForConditions(client, ns, "per-cluster", SUCCESS);
      const secret = (name: string, env: string) => ({
        apiVersion: "v1",
        kind: "Secret",
        metadata: { name, namespace: ns, labels: { "argocd.argoproj.io/secret-type": "cluster", env } },
        stringData: { name, server: `https://${name}.example.com` },
      });
      await client.create(resources.Secrets, secret("prod-1", "prod"));
      await client.create(resources.Secrets, secret("dev-1", "dev"));
      await waitForNames(client, ns, ["prod-1-app"]);
      await waitForConditions(client, ns, "per-cluster", SUCCESS);
    } finally {
      await run.stop();
    }
  });
});
