import { mkdtemp, readFile, readlink, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { ArtifactTree } from "../../oci/index.js";
import { isHelmOci, isHelmOciRepo } from "./access.js";
import { chartDirName, ociChartRepository, ociChartTag, pullOciChart, resolveOciChartVersion, type OciCharts } from "./oci-chart.js";

describe("which chart repositories are OCI registries", () => {
  it.each([
    // Argo CD's IsHelmOciRepo: no scheme, yet a host.
    { name: "a registry and a path", url: "registry.example.com/charts", want: true },
    { name: "a host and port", url: "demo.goharbor.io:8080", want: true },
    { name: "an IP and port", url: "192.168.100.150:1843", want: true },
    { name: "https", url: "https://charts.example.com", want: false },
    { name: "oci:// (an OCI artifact source, not a Helm registry)", url: "oci://registry.example.com/charts", want: false },
    { name: "empty", url: "", want: false },
    { name: "a bare path", url: "/charts", want: false },
  ])("$name", ({ url, want }) => {
    expect(isHelmOciRepo(url)).toBe(want);
  });

  it.each([
    { name: "enableOCI on the Secret makes an https URL one", url: "https://registry.example.com", creds: { enableOCI: true }, want: true },
    { name: "an https URL without it is not", url: "https://charts.example.com", creds: {}, want: false },
    { name: "a scheme-less URL is one without any Secret", url: "registry.example.com/charts", creds: undefined, want: true },
  ])("$name", ({ url, creds, want }) => {
    expect(isHelmOci(url, creds)).toBe(want);
  });
});

describe("a chart's place in the registry", () => {
  it.each([
    { repoURL: "registry.example.com/charts", chart: "web", want: "oci://registry.example.com/charts/web" },
    { repoURL: "registry.example.com/charts/", chart: "web", want: "oci://registry.example.com/charts/web" },
    { repoURL: "https://registry.example.com", chart: "team/web", want: "oci://registry.example.com/team/web" },
  ])("$repoURL + $chart is $want", ({ repoURL, chart, want }) => {
    expect(ociChartRepository(repoURL, chart)).toBe(want);
  });

  it.each([
    { version: "1.2.3", tag: "1.2.3" },
    { version: "1.2.3+build.7", tag: "1.2.3_build.7" },
  ])("version $version is tag $tag", ({ version, tag }) => {
    expect(ociChartTag(version)).toBe(tag);
  });

  it.each([
    { chart: "web", want: "web" },
    { chart: "team/web", want: "web" },
    { chart: "../..", want: "chart" },
  ])("chart $chart unpacks to $want", ({ chart, want }) => {
    expect(chartDirName(chart)).toBe(want);
  });
});

const CHART: ArtifactTree = {
  dirs: new Set(["templates"]),
  files: new Map([
    ["Chart.yaml", Buffer.from("apiVersion: v2\nname: web\nversion: 1.0.0\n")],
    ["templates/cm.yaml", Buffer.from("kind: ConfigMap\n")],
  ]),
  links: new Map([["values.yaml", "Chart.yaml"]]),
};

/** A registry holding `tags`, recording what it was asked. */
function registry(tags: string[] | Error): OciCharts & { asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    tags: (repo, opts) => {
      asked.push(`tags ${repo} creds=${opts.credentialsURL ?? ""}`);
      return tags instanceof Error ? Promise.reject(tags) : Promise.resolve(tags);
    },
    artifactAt: (repo, revision, opts) => {
      asked.push(`pull ${repo}:${revision} creds=${opts.credentialsURL ?? ""}`);
      return Promise.resolve({ digest: "sha256:x", tree: CHART });
    },
  };
}

const ref = { repoURL: "registry.example.com/charts", chart: "web", access: { project: "team" } };

describe("resolving a chart's version in an OCI registry", () => {
  it.each([
    { name: "an exact version is used without listing tags", revision: "1.0.0", want: "1.0.0", asked: [] as string[] },
    {
      name: "a constraint takes the highest tag meeting it, _ read as +",
      revision: "^1.0.0",
      want: "1.2.0+build.7",
      asked: ["tags oci://registry.example.com/charts/web creds=registry.example.com/charts"],
    },
  ])("$name", async ({ revision, want, asked }) => {
    const reg = registry(["0.9.0", "1.0.0", "1.2.0_build.7", "2.0.0"]);
    expect(await resolveOciChartVersion(reg, ref, revision)).toBe(want);
    expect(reg.asked).toEqual(asked);
  });

  it.each([
    {
      name: "no tag meets the constraint",
      tags: ["1.0.0"] as string[] | Error,
      want: "invalid revision: version matching constraint not found in 1 tags",
    },
    {
      name: "the tags cannot be listed",
      tags: new Error("401 Unauthorized"),
      want: "unable to get tags: failed to get tags: 401 Unauthorized",
    },
  ])("fails when $name", async ({ tags, want }) => {
    await expect(resolveOciChartVersion(registry(tags), ref, "^5.0.0")).rejects.toThrow(want);
  });
});

describe("pulling a chart from an OCI registry", () => {
  let dir: string | undefined;
  afterEach(async () => {
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });

  it("writes the chart under its name, links kept inside, from the version's tag", async () => {
    dir = await mkdtemp(join(tmpdir(), "appset-oci-chart-"));
    const reg = registry([]);
    await pullOciChart(reg, ref, "1.0.0+b", dir);
    expect(reg.asked).toEqual(["pull oci://registry.example.com/charts/web:1.0.0_b creds=registry.example.com/charts"]);
    expect(await readFile(join(dir, "web", "templates", "cm.yaml"), "utf8")).toBe("kind: ConfigMap\n");
    expect(await readlink(join(dir, "web", "values.yaml"))).toBe("Chart.yaml");
  });

  it("words a failed fetch as Argo CD does", async () => {
    const reg: OciCharts = { tags: () => Promise.resolve([]), artifactAt: () => Promise.reject(new Error("not found")) };
    await expect(pullOciChart(reg, ref, "1.0.0", "/nonexistent")).rejects.toThrow("error pulling OCI chart: not found");
  });
});
