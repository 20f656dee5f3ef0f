/**
 * The chart with the real helm (the one Argo CD v3.6 ships): `helm lint --strict` passes with its
 * values.schema.json, the schema refuses a value of the wrong type before anything renders, and
 * `helm install --dry-run=client` prints the NOTES.txt of what it installed and how to check it.
 * test/e2e/helm-chart.test.ts holds the renders equal to the kustomize installs.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, it } from "vitest";
import { CHART_PATH } from "../../unit/deploy/chart.js";
import { REPO_ROOT } from "../../unit/deploy/kustomize.js";
import { renderToolsDir } from "../../support/render-tools.js";

const exec = promisify(execFile);
const home = mkdtempSync(join(tmpdir(), "appset-helm-"));
const chart = join(REPO_ROOT, CHART_PATH);

afterAll(() => rmSync(home, { recursive: true, force: true }));

/** Runs helm offline, with a home of its own; resolves to its exit code and output. */
async function helm(args: readonly string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const env = { PATH: process.env["PATH"] ?? "", HOME: home, HELM_CACHE_HOME: home, HELM_CONFIG_HOME: home, HELM_DATA_HOME: home };
  try {
    const { stdout, stderr } = await exec(join(renderToolsDir(), "helm"), [...args], { env, maxBuffer: 64 * 1024 * 1024 });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: e.code ?? -1, stdout: e.stdout ?? "", stderr: e.stderr ?? "" };
  }
}

describe("the chart with the real helm", () => {
  it("passes helm lint --strict, its schema included", async () => {
    const r = await helm(["lint", "--strict", chart]);
    expect(r.stdout).toContain("1 chart(s) linted, 0 chart(s) failed");
    expect(r.stdout).not.toMatch(/\[(WARNING|ERROR)\]/);
  }, 60_000);

  it.each([
    { name: "a string for a number", set: ["--set-string", "applicationSet.replicas=2"], at: "/applicationSet/replicas" },
    { name: "a string for a boolean", set: ["--set-string", "sshKnownHosts.create=yes"], at: "/sshKnownHosts/create" },
    { name: "a number for a string", set: ["--set", "applicationSet.image.tag=1"], at: "/applicationSet/image/tag" },
    { name: "a log level the controller does not know", set: ["--set", "applicationSet.logLevel=verbose"], at: "/applicationSet/logLevel" },
    { name: "a map for a list", set: ["--set", "applicationSet.extraArgs.a=b"], at: "/applicationSet/extraArgs" },
  ])(
    "refuses $name before rendering, naming the value",
    async ({ set, at }) => {
      const r = await helm(["template", "appset", chart, "--namespace", "argocd", ...set]);
      expect(r.code).not.toBe(0);
      expect(r.stderr).toContain("values don't meet the specifications of the schema");
      expect(r.stderr).toContain(at);
    },
    60_000,
  );

  it.each([
    { name: "the defaults", set: [] },
    { name: "beside Argo CD", set: ["--set", "crds.install=false"] },
    {
      name: "an explicit known hosts choice and a PodDisruptionBudget by percentage",
      set: ["--set", "sshKnownHosts.create=true", "--set", "applicationSet.pdb.maxUnavailable=50%"],
    },
  ])(
    "accepts $name",
    async ({ set }) => {
      const r = await helm(["template", "appset", chart, "--namespace", "argocd", ...set]);
      expect(r.stderr.split("\n").filter((l) => l !== "" && !l.includes("level=INFO"))).toEqual([]);
      expect(r.code).toBe(0);
    },
    60_000,
  );

  it.each([
    {
      name: "a standalone install",
      set: ["--set", "applicationSet.allowAnyNamespace=true"],
      says: [
        "ClusterRole and ClusterRoleBinding",
        "argocd-ssh-known-hosts-cm",
        "AppProject default",
        "the Application, ApplicationSet and AppProject CRDs",
      ],
      not: ["no Argo CD CRDs"],
    },
    {
      name: "an install beside Argo CD",
      set: ["--set", "crds.install=false"],
      says: ["no Argo CD CRDs"],
      not: ["argocd-ssh-known-hosts-cm", "AppProject default", "ClusterRole"],
    },
  ])(
    "prints what $name holds and how to check it runs",
    async ({ set, says, not }) => {
      const r = await helm(["install", "appset", chart, "--namespace", "team-a", "--dry-run=client", ...set]);
      expect(r.code, r.stderr).toBe(0);
      const notes = r.stdout.slice(r.stdout.indexOf("NOTES:"));
      expect(notes).toContain("is installed in namespace team-a as release appset");
      expect(notes).toContain("kubectl -n team-a rollout status deployment argocd-applicationset-controller");
      for (const s of says) expect(notes).toContain(s);
      for (const s of not) expect(notes).not.toContain(s);
    },
    60_000,
  );
});
