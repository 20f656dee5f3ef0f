/**
 * Policies on the real control plane (docs/controller.md#policies): for each of sync,
 * create-update, create-delete and create-only, and for `--policy` with `--enable-policy-override`
 * on and off, the controller creates, updates and deletes exactly what the effective policy allows;
 * when the ApplicationSet is deleted, the Applications survive (owner references stripped) exactly
 * when the policy forbids deletes, and are otherwise garbage-collected.
 * `preserveResourcesOnDeletion: true` leaves the Applications without the resources finalizer, so
 * the collector removes them entirely.
 */
import { beforeAll, describe, expect, it } from "vitest";
import type { ApplicationsSyncPolicy } from "../../src/api/index.js";
import { resources, type KubeApiClient } from "../../src/kube/index.js";
import { applications, eventually, listAppSet, startController } from "./support/controller.js";
import { settle, SUCCESS, waitForConditions, waitForNames } from "./support/controller-wait.js";
import { e2eSuite } from "./support/suite.js";

const { client: suiteClient, namespace } = e2eSuite();
let client: KubeApiClient;

beforeAll(() => {
  client = suiteClient();
});

const SOURCE = { repoURL: "https://github.com/argoproj/argocd-example-apps", path: "guestbook" };

interface Row {
  readonly name: string;
  /** The ApplicationSet's `syncPolicy.applicationsSync`. */
  readonly own: ApplicationsSyncPolicy;
  /** `--policy` and `--enable-policy-override`. */
  readonly policy: ApplicationsSyncPolicy;
  readonly override: boolean;
  readonly updates: boolean;
  readonly deletes: boolean;
}

describe("policies", () => {
  it.each<Row>([
    {
      name: "sync creates, updates and deletes, and its Applications go with the ApplicationSet",
      own: "sync",
      policy: "sync",
      override: true,
      updates: true,
      deletes: true,
    },
    {
      name: "create-update creates and updates but keeps stale Applications, which outlive the ApplicationSet",
      own: "create-update",
      policy: "sync",
      override: true,
      updates: true,
      deletes: false,
    },
    {
      name: "create-delete creates and deletes but never updates",
      own: "create-delete",
      policy: "sync",
      override: true,
      updates: false,
      deletes: true,
    },
    {
      name: "create-only only creates, and its Applications outlive the ApplicationSet",
      own: "create-only",
      policy: "sync",
      override: true,
      updates: false,
      deletes: false,
    },
    {
      name: "--policy create-only wins over the ApplicationSet's sync when policy override is disabled",
      own: "sync",
      policy: "create-only",
      override: false,
      updates: false,
      deletes: false,
    },
    {
      name: "the ApplicationSet's sync wins over --policy create-only when policy override is enabled",
      own: "sync",
      policy: "create-only",
      override: true,
      updates: true,
      deletes: true,
    },
  ])("$name", async ({ own, policy, override, updates, deletes }) => {
    const ns = await namespace("ctl-pol");
    const run = await startController({ namespace: ns, settings: { policy, enablePolicyOverride: override } });
    try {
      const set = listAppSet("web", ns, ["a", "b"], { syncPolicy: { applicationsSync: own, preserveResourcesOnDeletion: true } });
      (set.metadata as { finalizers?: string[] }).finalizers = ["resources-finalizer.argocd.argoproj.io"];
      await client.create(resources.ApplicationSets, set);
      await waitForNames(client, ns, ["a", "b"]);
      for (const app of (await applications(client, ns)).values()) expect(app.metadata.finalizers ?? []).toEqual([]);

      // c is created under every policy: once it exists, the pass that saw the change is over.
      const template = (set["spec"] as { template: { spec: Record<string, unknown> } }).template;
      const spec = { ...template.spec, source: { ...SOURCE, targetRevision: "v2" } };
      await client.patch(
        resources.ApplicationSets,
        { namespace: ns, name: "web" },
        {
          type: "merge",
          body: { spec: { generators: [{ list: { elements: [{ name: "a" }, { name: "c" }] } }], template: { ...template, spec } } },
        },
      );
      await eventually("c", async () => ((await applications(client, ns)).has("c") ? true : undefined));
      await waitForConditions(client, ns, "web", SUCCESS);
      await settle(run);
      const apps = await applications(client, ns);
      expect(apps.get("a")?.spec.source?.targetRevision).toBe(updates ? "v2" : "HEAD");
      expect([...apps.keys()].sort()).toEqual(deletes ? ["a", "c"] : ["a", "b", "c"]);

      await client.delete(resources.ApplicationSets, { namespace: ns, name: "web" });
      await eventually("the ApplicationSet gone", () =>
        client.get(resources.ApplicationSets, { namespace: ns, name: "web" }).then(
          () => undefined,
          () => true,
        ),
      );
      if (deletes) {
        await waitForNames(client, ns, []);
      } else {
        // The owner references went before the ApplicationSet's finalizer, so nothing is left to collect.
        const left = await applications(client, ns);
        expect([...left.keys()].sort()).toEqual(["a", "b", "c"]);
        for (const app of left.values()) expect(app.metadata.ownerReferences ?? []).toEqual([]);
      }
    } finally {
      await run.stop();
    }
  });
});
