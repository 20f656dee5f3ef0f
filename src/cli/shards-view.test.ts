import { describe, expect, it } from "vitest";
import { microTime, type Lease } from "../leader/lease.js";
import { assignment } from "../shard/index.js";
import { ownedKeys, renderShards, shardsReport } from "./shards-view.js";

const T0 = Date.UTC(2026, 0, 1);

function lease(holder: string, renewedAt: number): Lease {
  return {
    metadata: { name: `g-member-${holder}` },
    spec: { holderIdentity: holder, leaseDurationSeconds: 15, renewTime: microTime(T0 + renewedAt) },
  };
}

const KEYS = Array.from({ length: 12 }, (_, i) => `argocd/appset-${String(i).padStart(2, "0")}`);
const LEASES = [lease("appset-b", 0), lease("appset-a", -1_000), lease("appset-gone", -60_000)];

describe("shardsReport", () => {
  it("gives each live member the ApplicationSets assignment() gives it, and lists the expired apart", () => {
    const r = shardsReport({ namespace: "argocd", group: "g", resource: "applicationsets", leases: LEASES, keys: KEYS, now: T0 + 5_000 });
    const want = assignment([...KEYS].sort(), ["appset-a", "appset-b"]);
    expect(r.members.map((m) => [m.identity, m.applicationSets])).toEqual([
      ["appset-a", want.get("appset-a")],
      ["appset-b", want.get("appset-b")],
    ]);
    expect(r.notLive.map((m) => m.identity)).toEqual(["appset-gone"]);
    expect(r.unowned).toEqual([]);
    expect(r.at).toBe("2026-01-01T00:00:05.000Z");
  });

  it.each([
    { resource: "applicationsets" as const, noun: "ApplicationSet" },
    { resource: "applications" as const, noun: "Application" },
  ])("leaves every $noun unowned without live members", ({ resource }) => {
    const r = shardsReport({ namespace: "argocd", group: "g", resource, leases: LEASES, keys: KEYS, now: T0 + 60_000 });
    expect(r).toMatchObject({ resource, members: [], unowned: KEYS });
  });

  it.each([
    { resource: "applicationsets" as const, field: "applicationSets", other: "applications" },
    { resource: "applications" as const, field: "applications", other: "applicationSets" },
  ])("names what it assigns ($resource) and gives each member's share as $field", ({ resource, field, other }) => {
    const r = shardsReport({ namespace: "argocd", group: "g", resource, leases: LEASES, keys: KEYS, now: T0 + 5_000 });
    const want = assignment([...KEYS].sort(), ["appset-a", "appset-b"]);
    expect(r.resource).toBe(resource);
    expect(Object.keys(r)).toEqual(["namespace", "group", "resource", "at", "members", "notLive", "unowned"]);
    for (const m of r.members) {
      expect(m).toHaveProperty(field, want.get(m.identity));
      expect(m).not.toHaveProperty(other);
      expect(ownedKeys(m)).toEqual(want.get(m.identity));
    }
  });
});

describe.each([
  { resource: "applicationsets" as const, count: "APPLICATIONSETS", key: "APPLICATIONSET", none: "No ApplicationSets found." },
  { resource: "applications" as const, count: "APPLICATIONS", key: "APPLICATION", none: "No Applications found." },
])("renderShards of $resource", ({ resource, count, key, none }) => {
  const report = shardsReport({ namespace: "argocd", group: "g", resource, leases: LEASES, keys: KEYS.slice(0, 3), now: T0 + 5_000 });
  const owner = (k: string): string => report.members.find((m) => ownedKeys(m).includes(k))!.identity;

  it(`prints the live members, their ${count} and every ${key}'s owner`, () => {
    const lines = renderShards(report, { wide: false });
    expect(lines.slice(0, 3)).toEqual(["Shard group g in namespace argocd: 2 live members", "1 more not live (-o wide lists them)", ""]);
    expect(lines[3]).toMatch(new RegExp(`^MEMBER\\s+${count}$`));
    expect(lines.slice(-4)).toEqual([
      `${key.padEnd("argocd/appset-00".length)}  OWNER`,
      `argocd/appset-00  ${owner("argocd/appset-00")}`,
      `argocd/appset-01  ${owner("argocd/appset-01")}`,
      `argocd/appset-02  ${owner("argocd/appset-02")}`,
    ]);
  });

  it(`lists every member Lease with -o wide, under ${count}`, () => {
    const lines = renderShards(report, { wide: true });
    expect(lines[2]).toMatch(new RegExp(`^MEMBER\\s+STATUS\\s+${count}\\s+LEASE\\s+RENEW TIME$`));
    expect(lines.find((l) => l.startsWith("appset-gone"))).toMatch(
      /^appset-gone\s+expired\s+-\s+g-member-appset-gone\s+2025-12-31T23:59:00.000000Z$/,
    );
  });

  it(`says when no member owns any ${key}`, () => {
    const unowned = shardsReport({ namespace: "argocd", group: "g", resource, leases: [], keys: ["argocd/a"], now: T0 });
    expect(renderShards(unowned, { wide: false })).toEqual([
      "Shard group g in namespace argocd: 0 live members",
      "",
      `${key.padEnd("argocd/a".length)}  OWNER`,
      `${"argocd/a".padEnd(key.length)}  <none>`,
    ]);
  });

  it(`says "${none}" when there is nothing to assign`, () => {
    const empty = shardsReport({ namespace: "argocd", group: "g", resource, leases: LEASES, keys: [], now: T0 + 5_000 });
    expect(renderShards(empty, { wide: false }).at(-1)).toBe(none);
  });
});
