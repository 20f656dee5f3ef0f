import { describe, expect, it } from "vitest";
import { microTime, type Lease } from "../leader/lease.js";
import { assignment } from "../shard/index.js";
import { renderShards, shardsReport } from "./shards-view.js";

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
    const r = shardsReport({ namespace: "argocd", group: "g", leases: LEASES, keys: KEYS, now: T0 + 5_000 });
    const want = assignment([...KEYS].sort(), ["appset-a", "appset-b"]);
    expect(r.members.map((m) => [m.identity, m.applicationSets])).toEqual([
      ["appset-a", want.get("appset-a")],
      ["appset-b", want.get("appset-b")],
    ]);
    expect(r.notLive.map((m) => m.identity)).toEqual(["appset-gone"]);
    expect(r.unowned).toEqual([]);
    expect(r.at).toBe("2026-01-01T00:00:05.000Z");
  });

  it("leaves every ApplicationSet unowned without live members", () => {
    const r = shardsReport({ namespace: "argocd", group: "g", leases: LEASES, keys: KEYS, now: T0 + 60_000 });
    expect(r.members).toEqual([]);
    expect(r.unowned).toEqual(KEYS);
  });
});

describe("renderShards", () => {
  const report = shardsReport({ namespace: "argocd", group: "g", leases: LEASES, keys: KEYS.slice(0, 3), now: T0 + 5_000 });
  const owner = (key: string): string => report.members.find((m) => m.applicationSets.includes(key))!.identity;

  it("prints the live members, their counts and every ApplicationSet's owner", () => {
    const lines = renderShards(report, { wide: false });
    expect(lines.slice(0, 3)).toEqual(["Shard group g in namespace argocd: 2 live members", "1 more not live (-o wide lists them)", ""]);
    expect(lines[3]).toMatch(/^MEMBER\s+APPLICATIONSETS$/);
    expect(lines.slice(-4)).toEqual([
      "APPLICATIONSET    OWNER",
      `argocd/appset-00  ${owner("argocd/appset-00")}`,
      `argocd/appset-01  ${owner("argocd/appset-01")}`,
      `argocd/appset-02  ${owner("argocd/appset-02")}`,
    ]);
  });

  it("lists every member Lease with -o wide", () => {
    const lines = renderShards(report, { wide: true });
    expect(lines[2]).toMatch(/^MEMBER\s+STATUS\s+APPLICATIONSETS\s+LEASE\s+RENEW TIME$/);
    expect(lines.find((l) => l.startsWith("appset-gone"))).toMatch(
      /^appset-gone\s+expired\s+-\s+g-member-appset-gone\s+2025-12-31T23:59:00.000000Z$/,
    );
  });

  it("says when no member owns anything", () => {
    const none = shardsReport({ namespace: "argocd", group: "g", leases: [], keys: ["argocd/a"], now: T0 });
    expect(renderShards(none, { wide: false })).toEqual([
      "Shard group g in namespace argocd: 0 live members",
      "",
      "APPLICATIONSET  OWNER",
      "argocd/a        <none>",
    ]);
  });
});
