/**
 * Progressive syncs on the real control plane, with the controller run in-process and the flag on:
 * the Application controller's part (reconciling the Applications and reporting their status) is
 * played by the test. The first step's Application gets a sync operation and the others do not, and
 * the ApplicationSet's `status.applicationStatus` lists every Application with its step and status.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Application } from "../../src/api/index.js";
import { resources, type KubeApiClient } from "../../src/kube/index.js";
import { applications, controllerNamespace, eventually, listAppSet, readAppSet, sharedClient, startController } from "./support/controller.js";

let client: KubeApiClient;
const namespaces: string[] = [];

beforeAll(() => {
  client = sharedClient();
});

afterAll(async () => {
  for (const ns of namespaces) await client.delete(resources.Namespaces, { name: ns }).catch(() => undefined);
  await client.transport.close();
});

const step = (env: string, maxUpdate?: number | string) => ({
  matchExpressions: [{ key: "envLabel", operator: "In", values: [`env-${env}`] }],
  ...(maxUpdate !== undefined ? { maxUpdate } : {}),
});

/** The seed's example: dev all at once, qa by hand, prod 10% at a time. */
function rollingAppSet(ns: string) {
  const set = listAppSet("guestbook", ns, ["dev", "qa", "prod"], { strategy: { type: "RollingSync", rollingSync: { steps: [step("dev"), step("qa", 0), step("prod", "10%")] } } });
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
    const ns = await controllerNamespace(client, "ps-rolling");
    namespaces.push(ns);
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
      expect(apps.get(names[0]!)?.operation).toMatchObject({ sync: { revision: "r1" }, initiatedBy: { username: "applicationset-controller", automated: true } });
      expect([apps.get(names[1]!)?.operation, apps.get(names[2]!)?.operation]).toEqual([undefined, undefined]);

      const set = await readAppSet(client, ns, "guestbook");
      expect(set.status?.applicationStatus?.map((e) => [e.application, e.step, e.status])).toEqual([
        [names[0], "1", "Pending"],
        [names[1], "3", "Waiting"],
        [names[2], "2", "Waiting"],
      ]);
      expect(set.status?.conditions?.find((c) => c.type === "RolloutProgressing")).toMatchObject({ status: "True", message: "ApplicationSet is performing rollout of step 1" });
    } finally {
      await run.stop();
    }
  });
});
