/**
 * Progressive syncs on the real control plane, with the controller run in-process and the flag on:
 * the Application controller's part (reconciling the Applications and reporting their status) is
 * played by the test. The first step's Application gets a sync operation and the others do not, and
 * the ApplicationSet's `status.applicationStatus` lists every Application with its step and status.
 * With `deletionOrder: Reverse` the Applications are deleted one at a time, last step first.
 */
import { beforeAll, describe, expect, it } from "vitest";
import type { Application } from "../../src/api/index.js";
import { resources, type KubeApiClient } from "../../src/kube/index.js";
import { applications, eventually, listAppSet, readAppSet, startController } from "./support/controller.js";
import { e2eSuite } from "./support/suite.js";

const { client: suiteClient, namespace } = e2eSuite();
let client: KubeApiClient;

beforeAll(() => {
  client = suiteClient();
});

const step = (env: string, maxUpdate?: number | string) => ({
  matchExpressions: [{ key: "envLabel", operator: "In", values: [`env-${env}`] }],
  ...(maxUpdate !== undefined ? { maxUpdate } : {}),
});

/** The seed's example: dev all at once, qa by hand, prod 10% at a time. */
function rollingAppSet(ns: string, deletionOrder?: string) {
  const strategy = {
    type: "RollingSync",
    rollingSync: { steps: [step("dev"), step("qa", 0), step("prod", "10%")] },
    ...(deletionOrder ? { deletionOrder } : {}),
  };
  const set = listAppSet("guestbook", ns, ["dev", "qa", "prod"], { strategy });
  const spec = set["spec"] as { template: { metadata: Record<string, unknown> } };
  spec.template.metadata = { name: "engineering-{{name}}-guestbook", labels: { envLabel: "env-{{name}}" } };
  return set;
}

/** What the Application controller would report: reconciled now on revision r1, OutOfSync, Healthy. */
async function reportReconciled(ns: string, app: Application): Promise<void> {
  const reconciledAt = new Date().toISOString().replace(/\.\d{3}Z$/, "Z");
  const status = {
    reconciledAt,
    sync: { status: "OutOfSync", revision: "r1", comparedTo: { source: app.spec.source, destination: app.spec.destination } },
    health: { status: "Healthy" },
  };
  await client.patch(resources.Applications, { namespace: ns, name: app.metadata.name ?? "" }, { type: "merge", body: { status } });
}

describe("progressive syncs", () => {
  it("syncs the first step's Application only, pinned to its revision, and records every Application's step and status", async () => {
    const ns = await namespace("ps-rolling");
    const run = await startController({ namespace: ns, settings: { progressiveSyncs: true } });
    try {
      await client.create(resources.ApplicationSets, rollingAppSet(ns));
      const names = ["engineering-dev-guestbook", "engineering-prod-guestbook", "engineering-qa-guestbook"];
      const created = await eventually("the Applications", async () => {
        const apps = await applications(client, ns);
        return names.every((n) => apps.has(n)) ? apps : undefined;
      });
      for (const app of created.values()) await reportReconciled(ns, app);

      const apps = await eventually("the sync of the first step", async () => {
        const all = await applications(client, ns);
        return all.get(names[0]!)?.operation?.sync ? all : undefined;
      });
      expect(apps.get(names[0]!)?.operation).toMatchObject({
        sync: { revision: "r1" },
        initiatedBy: { username: "applicationset-controller", automated: true },
      });
      expect([apps.get(names[1]!)?.operation, apps.get(names[2]!)?.operation]).toEqual([undefined, undefined]);

      const set = await readAppSet(client, ns, "guestbook");
      expect(set.status?.applicationStatus?.map((e) => [e.application, e.step, e.status])).toEqual([
        [names[0], "1", "Pending"],
        [names[1], "3", "Waiting"],
        [names[2], "2", "Waiting"],
      ]);
      expect(set.status?.conditions?.find((c) => c.type === "RolloutProgressing")).toMatchObject({
        status: "True",
        message: "ApplicationSet is performing rollout of step 1",
      });
    } finally {
      await run.stop();
    }
  });

  it("with deletionOrder Reverse adds the finalizer and deletes the Applications one at a time, last step first", async () => {
    const ns = await namespace("ps-reverse");
    const run = await startController({ namespace: ns, settings: { progressiveSyncs: true } });
    const key = (n: string) => ({ namespace: ns, name: `engineering-${n}-guestbook` });
    const terminating = async (): Promise<string[]> =>
      [...(await applications(client, ns)).values()].filter((a) => a.metadata.deletionTimestamp != null).map((a) => a.metadata.name ?? "");
    try {
      await client.create(resources.ApplicationSets, rollingAppSet(ns, "Reverse"));
      await eventually("the finalizer", async () =>
        (await readAppSet(client, ns, "guestbook")).metadata.finalizers?.includes("resources-finalizer.argocd.argoproj.io")
          ? true
          : undefined,
      );
      await eventually("the Applications", async () => ((await applications(client, ns)).size === 3 ? true : undefined));
      await client.delete(resources.ApplicationSets, { namespace: ns, name: "guestbook" });
      // The Applications keep their resources finalizer (no Application controller runs here): the test releases each one.
      for (const env of ["prod", "qa", "dev"]) {
        const name = key(env).name;
        expect(
          await eventually(
            `${name} terminating`,
            async () => {
              const t = await terminating();
              return t.length > 0 ? t : undefined;
            },
            25_000,
          ),
        ).toEqual([name]);
        await client.patch(resources.Applications, key(env), { type: "merge", body: { metadata: { finalizers: null } } });
        await eventually(`${name} gone`, async () => ((await applications(client, ns)).has(name) ? undefined : true));
      }
      await eventually(
        "the ApplicationSet gone",
        async () =>
          await readAppSet(client, ns, "guestbook").then(
            () => undefined,
            () => true,
          ),
      );
    } finally {
      await run.stop();
    }
  }, 90_000);
});
