import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { rolloutCommand } from "./rollout.js";

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

function write(name: string, content: string): string {
  const dir = mkdtempSync(join(tmpdir(), "rollout-plan-"));
  dirs.push(dir);
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}

/** The seed's guestbook example, with `extraProd` more prod elements. */
function guestbook(o: { extraProd?: number; prodMaxUpdate?: string; generators?: string } = {}): string {
  const extra = Array.from(
    { length: o.extraProd ?? 0 },
    (_, i) =>
      `          - cluster: prod-${String(i + 1).padStart(2, "0")}\n            url: https://10.0.0.${String(i + 1)}\n            env: env-prod\n`,
  ).join("");
  return `apiVersion: argoproj.io/v1alpha1
kind: ApplicationSet
metadata:
  name: guestbook
spec:
  generators:
${
  o.generators ??
  `  - list:
        elements:
          - cluster: engineering-dev
            url: https://1.2.3.4
            env: env-dev
          - cluster: engineering-qa
            url: https://2.4.6.8
            env: env-qa
          - cluster: engineering-prod
            url: https://9.8.7.6/
            env: env-prod
${extra}`
}  strategy:
    type: RollingSync
    deletionOrder: Reverse
    rollingSync:
      steps:
        - matchExpressions:
            - key: envLabel
              operator: In
              values:
                - env-dev
        - matchExpressions:
            - key: envLabel
              operator: In
              values:
                - env-qa
          maxUpdate: 0
        - matchExpressions:
            - key: envLabel
              operator: In
              values:
                - env-prod
          maxUpdate: ${o.prodMaxUpdate ?? "10%"}
  goTemplate: true
  goTemplateOptions: ['missingkey=error']
  template:
    metadata:
      name: '{{.cluster}}-guestbook'
      labels:
        envLabel: '{{.env}}'
    spec:
      project: my-project
      source:
        repoURL: https://github.com/infra-team/cluster-deployments.git
        targetRevision: HEAD
        path: guestbook/{{.cluster}}
      destination:
        server: '{{.url}}'
        namespace: guestbook
`;
}

function rolloutPolicy(): string {
  return `apiVersion: progressivesync.appset.dev/v1alpha1
kind: RolloutPolicy
metadata:
  name: careful
spec:
  applicationSets:
    names: [guestbook]
  defaults:
    progressDeadline: 10m
    maxFailures: 10%
  steps:
    - step: 2
      requireApproval: true
    - step: 3
      progressDeadline: 30m
      soak: 1h
    - step: 7
      soak: 1m
  rollback: { enabled: true, includeEarlierSteps: true }
`;
}

async function run(...args: string[]) {
  let out = "";
  let err = "";
  const code = await rolloutCommand(args, { out: (s) => (out += s), err: (s) => (err += s), env: {} });
  return { code, out, err };
}

describe("appset rollout plan", () => {
  it("prints the seed's example step by step", async () => {
    const res = await run("plan", "-f", write("appset.yaml", guestbook()));
    expect(res).toMatchObject({ code: 0, err: "" });
    expect(res.out).toBe(
      [
        "ApplicationSet guestbook: RollingSync",
        "Step 1: envLabel In [env-dev]; maxUpdate unset: all at once",
        "  Applications (1): engineering-dev-guestbook",
        "  Batch 1: engineering-dev-guestbook",
        "Step 2: envLabel In [env-qa]; maxUpdate 0: none, sync them by hand (later steps wait until they are Healthy)",
        "  Applications (1): engineering-qa-guestbook",
        "Step 3: envLabel In [env-prod]; maxUpdate 10%: 1 at a time",
        "  Applications (1): engineering-prod-guestbook",
        "  Batch 1: engineering-prod-guestbook",
        "Applications in no step (never synced by the rollout): none",
        "Deletion order (Reverse, one at a time): engineering-prod-guestbook, engineering-qa-guestbook, engineering-dev-guestbook",
        "Validation: Rolling Sync Configured correctly",
        "",
      ].join("\n"),
    );
  });

  it("splits 20 prod Applications into batches of 10% (2)", async () => {
    const res = await run("plan", "-f", write("appset.yaml", guestbook({ extraProd: 19 })), "-o", "json");
    expect(res.code).toBe(0);
    const plan = JSON.parse(res.out) as { steps: { limit: number | null; batches: string[][] }[] };
    expect(plan.steps.map((s) => s.limit)).toEqual([null, 0, 2]);
    expect(plan.steps[2]!.batches).toHaveLength(10);
    expect(plan.steps[2]!.batches[0]).toEqual(["engineering-prod-guestbook", "prod-01-guestbook"]);
  });

  it("reports an invalid maxUpdate and treats it as no limit", async () => {
    const res = await run("plan", "-f", write("appset.yaml", guestbook({ extraProd: 3, prodMaxUpdate: "ten" })));
    expect(res.out).toContain("Step 3: envLabel In [env-prod]; maxUpdate ten: all at once");
    expect(res.out).toContain("Batch 1: engineering-prod-guestbook, prod-01-guestbook, prod-02-guestbook, prod-03-guestbook");
    expect(res.out).toContain("  InvalidMaxUpdate: Step 3 has an invalid maxUpdate value: ten");
  });

  it("lists Applications in no step and empty steps, with clusters from --clusters", async () => {
    const secret = (name: string, server: string, env: string) =>
      JSON.stringify({
        apiVersion: "v1",
        kind: "Secret",
        metadata: { name, namespace: "argocd", labels: { "argocd.argoproj.io/secret-type": "cluster", env } },
        stringData: { name, server },
      });
    const clusters = write(
      "clusters.yaml",
      [secret("engineering-dev", "https://1.2.3.4", "env-dev"), secret("staging", "https://5.5.5.5", "env-staging")].join("\n---\n"),
    );
    const generators = `  - clusters:
        selector:
          matchExpressions:
            - key: env
              operator: Exists
        values:
          env: '{{ index .metadata.labels "env" }}'
`;
    const appSet = guestbook({ generators })
      .replace("name: '{{.cluster}}-guestbook'", "name: '{{.name}}-guestbook'")
      .replace("envLabel: '{{.env}}'", "envLabel: '{{.values.env}}'")
      .replace("server: '{{.url}}'", "server: '{{.server}}'")
      .replace("path: guestbook/{{.cluster}}", "path: guestbook/{{.name}}");
    const res = await run("plan", "-f", write("appset.yaml", appSet), "--clusters", clusters);
    expect(res).toMatchObject({ code: 0, err: "" });
    expect(res.out).toContain("Applications in no step (never synced by the rollout): staging-guestbook");
    expect(res.out).toContain("  EmptyStep: Steps [2 3] have no applications matching their criteria");
  });

  it("prints each step's rules from a RolloutPolicy, maxFailures as written and as a count (10% of 5 tolerates 0)", async () => {
    const policy = write("policy.yaml", rolloutPolicy());
    const res = await run("plan", "-f", write("appset.yaml", guestbook({ extraProd: 4 })), "--policy", policy);
    expect(res).toMatchObject({ code: 0, err: "" });
    const lines = res.out.split("\n");
    expect(lines[1]).toBe("Rollout policy careful:");
    expect(lines.filter((l) => l.startsWith("  Rules:") || l.startsWith("Rollback:") || l.startsWith("Policy steps"))).toEqual([
      "  Rules: progressDeadline 10m (default); maxFailures 10% (default): tolerates 0 of 1",
      "  Rules: progressDeadline 10m (default); maxFailures 10% (default): tolerates 0 of 1; requireApproval true (step)",
      "  Rules: progressDeadline 30m (step); maxFailures 10% (default): tolerates 0 of 5; soak 1h (step)",
      "Rollback: on, the halted step and the steps completed before it",
      "Policy steps the ApplicationSet does not have (ignored): 7",
    ]);
    const json = await run("plan", "-f", write("appset.yaml", guestbook({ extraProd: 19 })), "--policy", policy, "-o", "json");
    const safety = (JSON.parse(json.out) as { safety: { steps: { step: number; toleratedFailures: number; applications: number }[] } })
      .safety;
    expect(safety.steps.map((s) => [s.step, s.toleratedFailures, s.applications])).toEqual([
      [1, 0, 1],
      [2, 0, 1],
      [3, 2, 20],
    ]);
  });

  it.each([
    {
      name: "a bad duration",
      policy: rolloutPolicy().replace("soak: 1h", "soak: 1hour"),
      err: 'RolloutPolicy careful: spec.steps[1].soak: time: unknown unit "hour" in duration "1hour"',
    },
    {
      name: "a bad default",
      policy: rolloutPolicy().replace("progressDeadline: 10m", "progressDeadline: soon"),
      err: 'spec.defaults.progressDeadline: time: invalid duration "soon"',
    },
    { name: "no policy in the file", policy: "kind: ConfigMap\nmetadata: {name: x}\n", err: "no RolloutPolicy found" },
  ])("refuses a policy with $name", async ({ policy, err }) => {
    const res = await run("plan", "-f", write("appset.yaml", guestbook()), "--policy", write("policy.yaml", policy));
    expect(res.code).toBe(1);
    expect(res.err).toContain(err);
  });

  it.each([
    // name; arguments; expected exit code and error text
    { name: "no subcommand", args: ["-f", "x"], code: 3, err: 'appset rollout: unknown command "-f"' },
    { name: "no file", args: ["plan"], code: 2, err: "-f FILE is required" },
    { name: "a bad output format", args: ["plan", "-f", "x", "-o", "yaml"], code: 2, err: 'unknown output format "yaml"' },
    { name: "an unknown flag", args: ["plan", "--nope"], code: 2, err: "Unknown option" },
    { name: "a missing file", args: ["plan", "-f", "/nonexistent/appset.yaml"], code: 1, err: "ENOENT" },
  ])("fails on $name", async ({ args, code, err }) => {
    const res = await run(...args);
    expect(res.code).toBe(code);
    expect(res.err).toContain(err);
  });

  it("prints its usage with -h, and the usage of every rollout command without plan", async () => {
    expect(await run("plan", "-h")).toMatchObject({ code: 0, out: expect.stringContaining("Usage: appset rollout plan") });
    expect(await run("-h")).toMatchObject({ code: 0, out: expect.stringContaining("Usage: appset rollout <command> APPSET [flags]") });
  });
});
