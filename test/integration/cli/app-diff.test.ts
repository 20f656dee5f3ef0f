import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { resources, type KubeApiClient } from "../../../src/kube/index.js";
import { cliPlane, type CliRun } from "./support/cli-plane.js";
import { makeRepo, TempDirs } from "../support/git-repos.js";

// `appset diff` through the CLI entry (docs/cli.md) against a real apiserver with Argo CD's CRDs and
// a local Git repository: the manifests are read and compared as the sync engine does, no engine runs.

const NS = "argocd";
const DEST = "diff-dest";
const temp = new TempDirs();
const plane = cliPlane();
let client: KubeApiClient;

const repo = makeRepo(temp, {
  "app/cm.yaml": 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: settings\ndata:\n  a: "1"\n  b: "2"\n',
});

const appset = (...args: string[]): Promise<CliRun> => plane.appset(args);

async function createApp(name: string): Promise<void> {
  await client.create(resources.Applications, {
    apiVersion: "argoproj.io/v1alpha1",
    kind: "Application",
    metadata: { name, namespace: NS },
    spec: {
      project: "default",
      destination: { server: "https://kubernetes.default.svc", namespace: DEST },
      source: { repoURL: `file://${repo}`, path: "app", targetRevision: "HEAD" },
    },
  });
}

beforeAll(async () => {
  client = plane.client();
  for (const name of [NS, DEST]) await client.create(resources.Namespaces, { metadata: { name } });
  await createApp("web");
}, 120_000);

afterAll(() => temp.cleanup());

const TRACKING = "argocd.argoproj.io/tracking-id: web:/ConfigMap:diff-dest/settings";
const HEADER = "\n===== /ConfigMap diff-dest/settings ======\n--- live\n+++ desired\n";

describe("appset diff", () => {
  it("shows a missing live object as wholly added and exits 1", async () => {
    const res = await appset("diff", "web", "-n", NS);
    expect(res.err).toBe("");
    expect(res.code).toBe(1);
    const added = [
      "apiVersion: v1",
      "kind: ConfigMap",
      "metadata:",
      "  name: settings",
      `  namespace: ${DEST}`,
      "  annotations:",
      `    ${TRACKING}`,
    ];
    const body = [...added, "data:", '  a: "1"', '  b: "2"'].map((l) => `+${l}\n`).join("");
    expect(res.out).toBe(`${HEADER}@@ -0,0 +1,10 @@\n${body}`);
  }, 60_000);

  it("shows where a live object differs, leaving out what the apiserver and others add", async () => {
    await client.create(resources.ConfigMaps, {
      apiVersion: "v1",
      kind: "ConfigMap",
      metadata: {
        name: "settings",
        namespace: DEST,
        annotations: { "argocd.argoproj.io/tracking-id": "web:/ConfigMap:diff-dest/settings", "other.example.com/note": "kept live" },
      },
      data: { a: "1", b: "3", extra: "live only" },
    });
    const res = await appset("diff", "web", "-n", NS);
    expect(res.err).toBe("");
    expect(res.code).toBe(1);
    expect(res.out).toBe(`${HEADER}@@ -7,4 +7,4 @@\n     ${TRACKING}\n data:\n   a: "1"\n-  b: "3"\n+  b: "2"\n`);
    const ignored = await appset("diff", "web", "-n", NS, "--exit-code=false");
    expect(ignored.code).toBe(0);
    expect(ignored.out).toBe(res.out);
  }, 60_000);

  it("prints nothing and exits 0 when the live object matches", async () => {
    await client.patch(resources.ConfigMaps, { namespace: DEST, name: "settings" }, { type: "merge", body: { data: { b: "2" } } });
    const res = await appset("diff", "web", "-n", NS);
    expect(res.err).toBe("");
    expect(res.out).toBe("");
    expect(res.code).toBe(0);
  }, 60_000);

  it("exits 2 on an unknown Application and on a usage error", async () => {
    const missing = await appset("diff", "missing", "-n", NS);
    expect(missing.code).toBe(2);
    expect(missing.err).toBe("appset diff: application missing not found in namespace argocd\n");
    expect((await appset("diff")).code).toBe(2);
    expect((await appset("diff", "web", "--exit-code", "maybe")).code).toBe(2);
  });
});
