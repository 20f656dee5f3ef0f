import { describe, expect, it } from "vitest";
import { cachedClusterFacts, readClusterFacts } from "./cluster-facts.js";

const docs: Record<string, unknown> = {
  "/version": { gitVersion: "v1.36.3" },
  "/api": { versions: ["v1"] },
  "/apis": { groups: [{ versions: [{ groupVersion: "apps/v1" }] }, { versions: [{ groupVersion: "x.io/v1" }] }] },
  "/api/v1": {
    resources: [
      { name: "pods", kind: "Pod" },
      { name: "pods/status", kind: "Pod" },
      { name: "services", kind: "Service" },
    ],
  },
  "/apis/apps/v1": { resources: [{ name: "deployments", kind: "Deployment" }] },
};
const http = (calls: string[] = []) => ({
  request({ path }: { method: "GET"; path: string }): Promise<unknown> {
    calls.push(path);
    return path in docs ? Promise.resolve(docs[path]) : Promise.reject(new Error(`404 ${path}`));
  },
});

describe("cluster facts", () => {
  it("lists group-versions and their kinds, sorted; a group-version that cannot be read still counts", async () => {
    expect(await readClusterFacts(http())).toEqual({
      kubeVersion: "v1.36.3",
      apiVersions: ["apps/v1", "apps/v1/Deployment", "v1", "v1/Pod", "v1/Service", "x.io/v1"],
    });
  });

  it("keeps the facts for the time given", async () => {
    const calls: string[] = [];
    let now = 0;
    const facts = cachedClusterFacts(http(calls), () => now, 1000);
    await facts();
    await facts();
    const once = calls.length;
    now = 1500;
    await facts();
    expect(calls.length).toBe(once * 2);
  });
});
