import { describe, expect, it } from "vitest";
import type { HelmSource } from "../../api/index.js";
import { escapeSetValue, helmTemplateCommand, parseKubeVersion, type HelmInput } from "./helm-args.js";

const base: HelmInput = {
  helm: undefined,
  appPath: "charts/web",
  instanceName: "web",
  namespace: "prod",
  kubeVersion: "v1.36.3",
  apiVersions: ["apps/v1", "apps/v1/Deployment", "v1"],
  env: [{ name: "ARGOCD_APP_NAME", value: "web" }],
  files: [
    "charts/web/Chart.yaml",
    "charts/web/values.yaml",
    "charts/web/values-prod.yaml",
    "charts/web/env/a.yaml",
    "charts/web/env/b.yaml",
    "shared/common.yaml",
  ],
  workDir: "/w",
  valuesPath: "/s/values.yaml",
};
const args = (helm: HelmSource | undefined, extra: Partial<HelmInput> = {}): string[] =>
  helmTemplateCommand({ ...base, ...extra, helm }).args;
const API = ["--api-versions", "apps/v1", "--api-versions", "apps/v1/Deployment", "--api-versions", "v1"];

describe("the helm template command", () => {
  it("defaults: release from the Application, destination namespace, cluster version and APIs, CRDs included", () => {
    expect(args(undefined)).toEqual([
      "template",
      ".",
      "--name-template",
      "web",
      "--namespace",
      "prod",
      "--kube-version",
      "1.36.3",
      ...API,
      "--include-crds",
    ]);
  });

  it("takes the name part of a namespaced tracking name", () => {
    expect(args(undefined, { instanceName: "team_web" }).slice(0, 4)).toEqual(["template", ".", "--name-template", "web"]);
  });

  it("uses the source's release, namespace, version and API versions over the defaults", () => {
    const got = args({
      releaseName: "r",
      namespace: "other",
      kubeVersion: "1.30",
      apiVersions: ["x/v1"],
      skipCrds: true,
      skipTests: true,
      skipSchemaValidation: true,
    });
    expect(got).toEqual([
      "template",
      ".",
      "--name-template",
      "r",
      "--namespace",
      "other",
      "--kube-version",
      "1.30",
      "--api-versions",
      "x/v1",
      "--skip-schema-validation",
      "--skip-tests",
    ]);
  });

  it("passes parameters, string parameters and file parameters, with $VARs and commas escaped", () => {
    const got = args({
      parameters: [
        { name: "image.tag", value: "$ARGOCD_APP_NAME-1" },
        { name: "list", value: "{a,b}" },
        { name: "csv", value: "a,b\\,c" },
        { name: "port", value: "80", forceString: true },
      ],
      fileParameters: [{ name: "cfg", path: "../../shared/common.yaml" }],
    });
    expect(got.slice(8, 18)).toEqual([
      "--set",
      "image.tag=web-1",
      "--set",
      "list={a,b}",
      "--set",
      "csv=a\\,b\\,c",
      "--set-string",
      "port=80",
      "--set-file",
      "cfg=/w/shared/common.yaml",
    ]);
  });

  it("lists value files in order, a glob leaving out files named explicitly, then the inline values", () => {
    const cmd = helmTemplateCommand({
      ...base,
      helm: { valueFiles: ["env/*.yaml", "env/a.yaml", "values-prod.yaml", "https://x/v.yaml"], values: "a: 1\n" },
    });
    const values = cmd.args.flatMap((a, i) => (a === "--values" ? [cmd.args[i + 1]] : []));
    expect(values).toEqual([
      "/w/charts/web/env/b.yaml",
      "/w/charts/web/env/a.yaml",
      "/w/charts/web/values-prod.yaml",
      "https://x/v.yaml",
      "/s/values.yaml",
    ]);
    expect(cmd.values).toBe("a: 1\n");
  });

  it("writes valuesObject as YAML in place of values", () => {
    expect(helmTemplateCommand({ ...base, helm: { values: "a: 1", valuesObject: { b: { c: [1, "x"] } } } }).values).toBe(
      "b:\n  c:\n    - 1\n    - x\n",
    );
  });

  it("drops missing value files only when asked", () => {
    const missing = { valueFiles: ["nope.yaml", "values.yaml"] };
    expect(args(missing)).toContain("/w/charts/web/nope.yaml");
    expect(args({ ...missing, ignoreMissingValueFiles: true })).not.toContain("/w/charts/web/nope.yaml");
    expect(() => args({ valueFiles: ["none/*.yaml"] })).toThrow('values file glob "none/*.yaml" matched no files');
    expect(args({ valueFiles: ["none/*.yaml"], ignoreMissingValueFiles: true })).not.toContain("--values");
  });

  it.each([
    { file: "../../../etc/passwd", message: "file '../../../etc/passwd' resolved to outside repository root" },
    { file: "s3://bucket/v.yaml", message: "the URL scheme 's3' is not allowed" },
  ])("refuses the value file $file", ({ file, message }) => {
    expect(() => args({ valueFiles: [file] })).toThrow(message);
  });

  it("reads an absolute value file from the repository root", () => {
    expect(args({ valueFiles: ["/shared/common.yaml"] })).toContain("/w/shared/common.yaml");
  });
});

describe("helpers", () => {
  it.each([
    { v: "v1.36.3", want: "1.36.3" },
    { v: "1.30", want: "1.30" },
    { v: "v1.29.0+k3s1", want: "1.29.0" },
    { v: "", want: "" },
  ])("kube version $v", ({ v, want }) => {
    expect(parseKubeVersion(v)).toBe(want);
  });

  it("refuses a version without a minor", () => {
    expect(() => parseKubeVersion("1")).toThrow('could not parse kubernetes version 1: illegal version string "1"');
  });

  it.each([
    { v: "a,b", want: "a\\,b" },
    { v: "a\\,b", want: "a\\,b" },
    { v: "{a,b}", want: "{a,b}" },
  ])("escapes --set value $v", ({ v, want }) => {
    expect(escapeSetValue(v)).toBe(want);
  });
});
