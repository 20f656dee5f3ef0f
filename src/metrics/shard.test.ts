import { describe, expect, it } from "vitest";
import { Registry, ShardMetrics } from "./index.js";

async function samples(registry: Registry, name: string): Promise<string[]> {
  return (await registry.getSingleMetricAsString(name)).split("\n").filter((l) => l !== "" && !l.startsWith("#"));
}

describe("sharded replicas' metrics", () => {
  it("read the live members and the owned ApplicationSets at each scrape", async () => {
    const registry = new Registry();
    let members = 3;
    let owned = 11;
    new ShardMetrics({ registry, members: () => members, owned: () => owned });
    expect(await samples(registry, "appset_shard_members")).toEqual(["appset_shard_members 3"]);
    expect(await samples(registry, "appset_shard_owned_applicationsets")).toEqual(["appset_shard_owned_applicationsets 11"]);
    members = 2;
    owned = 16;
    expect(await samples(registry, "appset_shard_members")).toEqual(["appset_shard_members 2"]);
    expect(await samples(registry, "appset_shard_owned_applicationsets")).toEqual(["appset_shard_owned_applicationsets 16"]);
  });

  it("read the Applications a sharded sync engine owns, and register only the owned counts given", async () => {
    const registry = new Registry();
    let owned = 7;
    new ShardMetrics({ registry, members: () => 2, ownedApplications: () => owned });
    expect(await samples(registry, "appset_shard_owned_applications")).toEqual(["appset_shard_owned_applications 7"]);
    owned = 4;
    expect(await samples(registry, "appset_shard_owned_applications")).toEqual(["appset_shard_owned_applications 4"]);
    expect(registry.getSingleMetric("appset_shard_owned_applicationsets")).toBeUndefined();
  });

  it("count the changes of the live members from zero", async () => {
    const registry = new Registry();
    const metrics = new ShardMetrics({ registry, members: () => 0, owned: () => 0 });
    expect(await samples(registry, "appset_shard_membership_changes_total")).toEqual(["appset_shard_membership_changes_total 0"]);
    metrics.membershipChanged();
    metrics.membershipChanged();
    expect(await samples(registry, "appset_shard_membership_changes_total")).toEqual(["appset_shard_membership_changes_total 2"]);
  });
});
