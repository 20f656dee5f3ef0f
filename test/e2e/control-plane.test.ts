/**
 * Proof that the test control plane is real: the scheduler places pods on the KWOK node, the
 * controller manager drives Deployments and Jobs and collects garbage. None of this would happen
 * against a fake apiserver.
 */
import { AppsV1Api, BatchV1Api, CoreV1Api, type KubeConfig } from "@kubernetes/client-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createNamespace, deleteNamespace, sharedKubeConfig } from "./support/namespace.js";
import { waitFor } from "../cluster/http.js";

let kc: KubeConfig;
let ns: string;

beforeAll(async () => {
  kc = sharedKubeConfig();
  ns = await createNamespace(kc, "cp");
});

afterAll(async () => {
  await deleteNamespace(kc, ns);
});

const labels = { app: "web" };

describe("the local control plane", () => {
  it("schedules a Deployment's 2 replicas onto the KWOK node and reports it Available", async () => {
    const apps = kc.makeApiClient(AppsV1Api);
    await apps.createNamespacedDeployment({
      namespace: ns,
      body: {
        metadata: { name: "web" },
        spec: {
          replicas: 2,
          selector: { matchLabels: labels },
          template: { metadata: { labels }, spec: { containers: [{ name: "web", image: "nginx" }] } },
        },
      },
    });
    const dep = await waitFor("Deployment available", async () => {
      const d = await apps.readNamespacedDeployment({ name: "web", namespace: ns });
      const available = d.status?.conditions?.some((c) => c.type === "Available" && c.status === "True");
      return available && d.status?.availableReplicas === 2 ? d : undefined;
    });
    expect(dep.status?.readyReplicas).toBe(2);
    const pods = await kc.makeApiClient(CoreV1Api).listNamespacedPod({ namespace: ns, labelSelector: "app=web" });
    expect(pods.items).toHaveLength(2);
    for (const pod of pods.items) {
      expect(pod.spec?.nodeName).toBe("kwok-node-0");
      expect(pod.status?.phase).toBe("Running");
    }
  });

  it("runs a Job to completion", async () => {
    const batch = kc.makeApiClient(BatchV1Api);
    await batch.createNamespacedJob({
      namespace: ns,
      body: {
        metadata: { name: "once" },
        spec: {
          template: { spec: { restartPolicy: "Never", containers: [{ name: "c", image: "busybox" }] } },
        },
      },
    });
    const job = await waitFor("Job complete", async () => {
      const j = await batch.readNamespacedJob({ name: "once", namespace: ns });
      return j.status?.conditions?.some((c) => c.type === "Complete" && c.status === "True") ? j : undefined;
    });
    expect(job.status?.succeeded).toBe(1);
  });

  it("garbage-collects the dependents of a deleted owner", async () => {
    const core = kc.makeApiClient(CoreV1Api);
    const owner = await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: "owner" } } });
    await core.createNamespacedConfigMap({
      namespace: ns,
      body: {
        metadata: {
          name: "dependent",
          ownerReferences: [{ apiVersion: "v1", kind: "ConfigMap", name: "owner", uid: owner.metadata!.uid! }],
        },
      },
    });
    await core.deleteNamespacedConfigMap({ name: "owner", namespace: ns });
    await waitFor("dependent collected", async () => {
      const list = await core.listNamespacedConfigMap({ namespace: ns });
      return list.items.some((c) => c.metadata?.name === "dependent") ? undefined : true;
    });
    const left = await core.listNamespacedConfigMap({ namespace: ns });
    expect(left.items.map((c) => c.metadata?.name)).not.toContain("dependent");
  });
});
