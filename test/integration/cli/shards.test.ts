import { beforeAll, describe, expect, it } from "vitest";
import type { ApplicationSet } from "../../../src/api/index.js";
import type { ApplicationShardsReport, AppSetShardsReport } from "../../../src/cli/shards-view.js";
import { resources, type KubeApiClient } from "../../../src/kube/index.js";
import { Leases, microTime, type Lease } from "../../../src/leader/lease.js";
import { assignment, memberLeaseName, SHARD_GROUP_LABEL } from "../../../src/shard/index.js";
import { yaml } from "../../../src/yaml.js";
import { cliPlane, type CliRun } from "./support/cli-plane.js";

// `appset shards` through the CLI entry against a real apiserver: member Leases written by hand as
// the replicas write them, ApplicationSets and Applications in two namespaces, and the printed
// assignment compared with the replicas' rule, assignment() over the live members. The screen of
// docs/cli.md comes from this command.

const NS = "argocd";
const TEAM = "team-a";
const GROUP = "appsets";
const plane = cliPlane();
let client: KubeApiClient;

const appset = (...args: string[]): Promise<CliRun> => plane.appset(["shards", ...args]);

async function memberLease(identity: string, group: string, renewedAgoMs: number): Promise<void> {
  const renewed = microTime(Date.now() - renewedAgoMs);
  await client.create<Lease>(Leases, {
    apiVersion: "coordination.k8s.io/v1",
    kind: "Lease",
    metadata: { name: memberLeaseName(group, identity), namespace: NS, labels: { [SHARD_GROUP_LABEL]: group } },
    spec: { holderIdentity: identity, leaseDurationSeconds: 300, acquireTime: renewed, renewTime: renewed },
  });
}

const KEYS = [
  ...Array.from({ length: 20 }, (_, i) => `${NS}/appset-${String(i)}`),
  ...Array.from({ length: 5 }, (_, i) => `${TEAM}/team-${String(i)}`),
];

/** Applications (`--applications`), named apart from the ApplicationSets so that a mix-up shows. */
const APP_KEYS = [
  ...Array.from({ length: 16 }, (_, i) => `${NS}/app-${String(i)}`),
  ...Array.from({ length: 4 }, (_, i) => `${TEAM}/team-app-${String(i)}`),
];

const TEMPLATE_SPEC = {
  project: "default",
  source: { repoURL: "https://example.com/r.git", path: "p" },
  destination: { server: "https://kubernetes.default.svc", namespace: "default" },
};

beforeAll(async () => {
  client = plane.client();
  for (const name of [NS, TEAM]) await client.create(resources.Namespaces, { metadata: { name } });
  for (const key of KEYS) {
    const [namespace, name] = key.split("/") as [string, string];
    await client.create<ApplicationSet>(resources.ApplicationSets, {
      apiVersion: "argoproj.io/v1alpha1",
      kind: "ApplicationSet",
      metadata: { name, namespace },
      spec: { generators: [{ list: { elements: [] } }], template: { metadata: { name: "{{name}}" }, spec: TEMPLATE_SPEC } },
    } as unknown as ApplicationSet);
  }
  for (const key of APP_KEYS) {
    const [namespace, name] = key.split("/") as [string, string];
    await client.create(resources.Applications, {
      apiVersion: "argoproj.io/v1alpha1",
      kind: "Application",
      metadata: { name, namespace },
      spec: TEMPLATE_SPEC,
    });
  }
  await memberLease("appset-0_5f3d", GROUP, 1_000);
  await memberLease("appset-1_9a71", GROUP, 2_000);
  await memberLease("appset-2_0b6c", GROUP, 1_000);
  // Expired: renewed longer ago than its lease duration.
  await memberLease("appset-3_dead", GROUP, 600_000);
  // Another group's member.
  await memberLease("other-0_1234", "other", 1_000);
}, 180_000);

const LIVE = ["appset-0_5f3d", "appset-1_9a71", "appset-2_0b6c"];

describe("appset shards", () => {
  it("prints the live members and the ApplicationSets each owns, as assignment() gives them", async () => {
    const { code, out, err } = await appset("-n", NS, "--group", GROUP, "-o", "json");
    expect(err).toBe("");
    expect(code).toBe(0);
    const report = JSON.parse(out) as AppSetShardsReport;
    expect(report.resource).toBe("applicationsets");
    const nsKeys = KEYS.filter((k) => k.startsWith(`${NS}/`)).sort();
    const want = assignment(nsKeys, LIVE);
    expect(report.members.map((m) => m.identity)).toEqual(LIVE);
    for (const m of report.members) expect(m.applicationSets).toEqual(want.get(m.identity));
    expect(report.members.every((m) => m.lease === memberLeaseName(GROUP, m.identity))).toBe(true);
    expect(report.notLive.map((m) => m.identity)).toEqual(["appset-3_dead"]);
    expect(report.unowned).toEqual([]);
  });

  it("assigns the ApplicationSets of every namespace with -A", async () => {
    const { code, out } = await appset("-n", NS, "--group", GROUP, "-A", "-o", "yaml");
    expect(code).toBe(0);
    const report = yaml().parse(out) as AppSetShardsReport;
    const want = assignment([...KEYS].sort(), LIVE);
    expect(Object.fromEntries(report.members.map((m) => [m.identity, m.applicationSets]))).toEqual(Object.fromEntries(want));
  });

  it("prints a table: each member with its count, each ApplicationSet with its owner", async () => {
    const { code, out } = await appset("-n", NS, "--group", GROUP);
    expect(code).toBe(0);
    const lines = out.trimEnd().split("\n");
    expect(lines[0]).toBe(`Shard group ${GROUP} in namespace ${NS}: 3 live members`);
    expect(lines[1]).toBe("1 more not live (-o wide lists them)");
    const want = assignment(
      KEYS.filter((k) => k.startsWith(`${NS}/`)),
      LIVE,
    );
    for (const id of LIVE) expect(lines).toContainEqual(expect.stringMatching(new RegExp(`^${id}\\s+${String(want.get(id)!.length)}$`)));
    for (const [id, keys] of want) for (const k of keys) expect(lines).toContainEqual(expect.stringMatching(new RegExp(`^${k}\\s+${id}$`)));
  });

  it("shows the expired member with -o wide, and nothing of another group", async () => {
    const { out } = await appset("-n", NS, "--group", GROUP, "-o", "wide");
    expect(out).toMatch(/^appset-3_dead\s+expired\s+-\s+appsets-member-[0-9a-f]{16}\s+\S+Z$/m);
    expect(out).not.toContain("other-0_1234");
  });

  it("assigns the Applications with --applications, as the sharded sync engine does", async () => {
    const { code, out, err } = await appset("-n", NS, "--group", GROUP, "--applications", "-o", "json");
    expect(err).toBe("");
    expect(code).toBe(0);
    const report = JSON.parse(out) as ApplicationShardsReport;
    expect(report.resource).toBe("applications");
    const want = assignment(APP_KEYS.filter((k) => k.startsWith(`${NS}/`)).sort(), LIVE);
    expect(report.members.map((m) => [m.identity, m.applications])).toEqual(LIVE.map((id) => [id, want.get(id)]));
    expect(report.members.some((m) => "applicationSets" in m)).toBe(false);
    expect(report.notLive.map((m) => m.identity)).toEqual(["appset-3_dead"]);
    expect(report.unowned).toEqual([]);
  });

  it("assigns the Applications of every namespace with --applications -A", async () => {
    const { code, out } = await appset("-n", NS, "--group", GROUP, "--applications", "-A", "-o", "yaml");
    expect(code).toBe(0);
    const report = yaml().parse(out) as ApplicationShardsReport;
    expect(report.resource).toBe("applications");
    const want = assignment([...APP_KEYS].sort(), LIVE);
    expect(Object.fromEntries(report.members.map((m) => [m.identity, m.applications]))).toEqual(Object.fromEntries(want));
  });

  it("prints the Applications' table with --applications", async () => {
    const { code, out } = await appset("-n", NS, "--group", GROUP, "--applications");
    expect(code).toBe(0);
    const lines = out.trimEnd().split("\n");
    expect(lines[0]).toBe(`Shard group ${GROUP} in namespace ${NS}: 3 live members`);
    expect(lines[3]).toMatch(/^MEMBER\s+APPLICATIONS$/);
    expect(lines).toContainEqual(expect.stringMatching(/^APPLICATION\s+OWNER$/));
    expect(out).not.toContain("APPLICATIONSET");
    const want = assignment(
      APP_KEYS.filter((k) => k.startsWith(`${NS}/`)),
      LIVE,
    );
    for (const id of LIVE) expect(lines).toContainEqual(expect.stringMatching(new RegExp(`^${id}\\s+${String(want.get(id)!.length)}$`)));
    for (const [id, keys] of want) for (const k of keys) expect(lines).toContainEqual(expect.stringMatching(new RegExp(`^${k}\\s+${id}$`)));
    expect(out).not.toMatch(/appset-\d+\s/);
  });

  it("says when a namespace has no Applications, with --applications", async () => {
    const { code, out } = await appset("-n", "no-apps", "--group", GROUP, "--applications");
    expect(code).toBe(0);
    expect(out).toBe(`Shard group ${GROUP} in namespace no-apps: 0 live members\n\nNo Applications found.\n`);
  });

  it("refuses a group that cannot name one, with exit 2", async () => {
    const { code, err } = await appset("--group", "Not_A_Group");
    expect(code).toBe(2);
    expect(err).toContain("shard group 'Not_A_Group' must be");
  });
});
