import { readdirSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { FIXTURES, loadFixture } from "../../../test/fixtures/load.js";
import { APPLICATIONS_SYNC_POLICIES } from "../appset-status.js";
import { applicationCrd, applicationSetCrd, appProjectCrd, CRD_FILES, renderCrdYaml, ROLLOUT_CRD_FILES } from "./crds.js";
import type { SchemaNode } from "./openapi.js";
import { at, rootOf, versionOf } from "./schema-path.js";
import { structuralViolations, undeclaredPaths } from "./structural.js";

const appset = rootOf(applicationSetCrd());
const app = rootOf(applicationCrd());
const project = rootOf(appProjectCrd());

const DIRS = [
  { dir: "crds", files: CRD_FILES },
  { dir: "rollout-crds", files: ROLLOUT_CRD_FILES },
];

describe("the committed CRD YAML", () => {
  it.each(DIRS.flatMap(({ dir, files }) => Object.keys(files).map((name) => ({ dir, name, files }))))(
    "deploy/$dir/$name is exactly what the schemas generate",
    async ({ dir, name, files }) => {
      await expect(renderCrdYaml(files[name]!())).toMatchFileSnapshot(`../../../deploy/${dir}/${name}`);
    },
    // Rendering the ApplicationSet CRD (the largest) is CPU-bound: on a loaded machine it can pass 5 s.
    30_000,
  );

  it.each(DIRS)("lists every *-crd.yaml file of deploy/$dir in its kustomization, and nothing else", ({ dir, files }) => {
    const url = new URL(`../../../deploy/${dir}/`, import.meta.url);
    const onDisk = readdirSync(url)
      .filter((f) => f.endsWith("-crd.yaml"))
      .sort();
    const kustomization = parse(readFileSync(new URL("kustomization.yaml", url), "utf8")) as { resources: string[] };
    expect([...kustomization.resources].sort()).toEqual(onDisk);
    expect(onDisk).toEqual(Object.keys(files).sort());
  });
});

describe("structural schemas", () => {
  it.each([
    { name: "ApplicationSet", schema: appset },
    { name: "Application", schema: app },
    { name: "AppProject", schema: project },
  ])("the $name schema follows every structural rule the apiserver enforces", ({ schema }) => {
    expect(structuralViolations(schema)).toEqual([]);
  });

  it.each([
    {
      name: "a property without a type",
      schema: { type: "object", properties: { a: {} } },
      expected: "root.a: no type",
    },
    {
      name: "properties together with additionalProperties",
      schema: { type: "object", properties: { a: { type: "string" } }, additionalProperties: { type: "string" } },
      expected: "root: properties and additionalProperties are mutually exclusive",
    },
    {
      name: "an array without items",
      schema: { type: "object", properties: { a: { type: "array" } } },
      expected: "root.a: array without items",
    },
    {
      name: "restrictions on the root metadata",
      schema: { type: "object", properties: { metadata: { type: "object", properties: { labels: { type: "object" } } } } },
      expected: "metadata: only `type: object` is allowed at the root metadata",
    },
    {
      name: "a required field that is not a property",
      schema: { type: "object", properties: { a: { type: "string" } }, required: ["b"] },
      expected: "root: required b not among the properties",
    },
    {
      name: "an anyOf that is not int-or-string",
      schema: { type: "object", properties: { a: { anyOf: [{ type: "string" }, { type: "boolean" }] } } },
      expected: "root.a: anyOf is only used here for int-or-string",
    },
    {
      name: "a keyword structural schemas forbid",
      schema: { type: "object", properties: { a: { type: "string", $ref: "#/x" } } },
      expected: "root.a: unexpected keyword $ref",
    },
  ])("the structural check reports $name", ({ schema, expected }) => {
    expect(structuralViolations(schema)).toContain(expected);
  });
});

describe("CRD facts that must match Argo CD", () => {
  it.each([
    // crd: the CRD; plural/short: the names Argo CD uses; status: whether /status is a subresource
    { name: "ApplicationSet", crd: applicationSetCrd(), plural: "applicationsets", short: ["appset", "appsets"], status: true },
    { name: "Application", crd: applicationCrd(), plural: "applications", short: ["app", "apps"], status: false },
    { name: "AppProject", crd: appProjectCrd(), plural: "appprojects", short: ["appproj", "appprojs"], status: false },
  ])("$name is served and stored as argoproj.io/v1alpha1 under Argo CD's names", ({ name, crd, plural, short, status }) => {
    const spec = crd["spec"] as { group: string; scope: string; names: Record<string, unknown> };
    expect((crd["metadata"] as { name: string }).name).toBe(`${plural}.argoproj.io`);
    expect(spec.group).toBe("argoproj.io");
    expect(spec.scope).toBe("Namespaced");
    expect(spec.names).toMatchObject({ kind: name, plural, shortNames: short, listKind: `${name}List` });
    const version = versionOf(crd);
    expect(version).toMatchObject({ name: "v1alpha1", served: true, storage: true });
    expect("subresources" in version).toBe(status);
  });

  it.each([
    // schema: the CRD root; path: where; required: the required list Argo CD's CRD has there
    { name: "ApplicationSet root", schema: appset, path: "", required: ["metadata", "spec"] },
    { name: "ApplicationSet spec", schema: appset, path: "spec", required: ["generators", "template"] },
    { name: "ApplicationSet template", schema: appset, path: "spec.template", required: ["metadata", "spec"] },
    { name: "template spec", schema: appset, path: "spec.template.spec", required: ["destination", "project"] },
    { name: "list generator template", schema: appset, path: "spec.generators.[].list.template", required: ["metadata", "spec"] },
    {
      name: "matrix child's git template spec",
      schema: appset,
      path: "spec.generators.[].matrix.generators.[].git.template.spec",
      required: ["destination", "project"],
    },
    { name: "merge generator", schema: appset, path: "spec.generators.[].merge", required: ["generators", "mergeKeys"] },
    { name: "git generator", schema: appset, path: "spec.generators.[].git", required: ["repoURL", "revision"] },
    { name: "condition", schema: appset, path: "status.conditions.[]", required: ["message", "reason", "status", "type"] },
    {
      name: "applicationStatus entry",
      schema: appset,
      path: "status.applicationStatus.[]",
      required: ["application", "message", "status", "step", "targetRevisions"],
    },
    { name: "Application root", schema: app, path: "", required: ["metadata", "spec"] },
    { name: "Application spec", schema: app, path: "spec", required: ["destination", "project"] },
    { name: "Application source", schema: app, path: "spec.source", required: ["repoURL"] },
    { name: "operationState", schema: app, path: "status.operationState", required: ["operation", "phase", "startedAt"] },
    { name: "history entry", schema: app, path: "status.history.[]", required: ["deployedAt", "id"] },
    { name: "AppProject root", schema: project, path: "", required: ["metadata", "spec"] },
    { name: "resource whitelist entry", schema: project, path: "spec.clusterResourceWhitelist.[]", required: ["group", "kind"] },
  ])("the $name requires exactly $required", ({ schema, path, required }) => {
    const node = path === "" ? schema : at(schema, path);
    expect(node["required"] ?? []).toEqual(required);
  });

  it("restricts syncPolicy.applicationsSync to Argo CD's four policies", () => {
    expect(at(appset, "spec.syncPolicy.applicationsSync")).toMatchObject({ type: "string", enum: [...APPLICATIONS_SYNC_POLICIES] });
  });

  it("declares RollingSync maxUpdate as int-or-string", () => {
    expect(at(appset, "spec.strategy.rollingSync.steps.[].maxUpdate")).toMatchObject({
      "x-kubernetes-int-or-string": true,
    });
  });

  it.each([
    { name: "list elements", path: "spec.generators.[].list.elements.[]" },
    { name: "a matrix nested in a matrix", path: "spec.generators.[].matrix.generators.[].matrix" },
    { name: "a merge nested in a merge", path: "spec.generators.[].merge.generators.[].merge" },
    { name: "plugin input parameters", path: "spec.generators.[].plugin.input.parameters" },
  ])("keeps $name free-form", ({ path }) => {
    const node = at(appset, path);
    const preserved = node["x-kubernetes-preserve-unknown-fields"] === true;
    const valuesPreserved = (node["additionalProperties"] as SchemaNode | undefined)?.["x-kubernetes-preserve-unknown-fields"] === true;
    expect(preserved || valuesPreserved).toBe(true);
  });

  it("does not let a nested matrix child hold a further typed matrix (the third level is raw JSON)", () => {
    expect(at(appset, "spec.generators.[].matrix.generators.[].matrix")).toEqual({
      "x-kubernetes-preserve-unknown-fields": true,
    });
  });

  it("shows Argo CD's Application printer columns", () => {
    expect(versionOf(applicationCrd())["additionalPrinterColumns"]).toEqual([
      { name: "Sync Status", type: "string", jsonPath: ".status.sync.status" },
      { name: "Health Status", type: "string", jsonPath: ".status.health.status" },
      { name: "Revision", type: "string", jsonPath: ".status.sync.revision", priority: 10 },
      { name: "Project", type: "string", jsonPath: ".spec.project", priority: 10 },
    ]);
  });
});

describe("field descriptions (shown by kubectl explain)", () => {
  it.each(
    [
      ...[
        "generators",
        "template",
        "templatePatch",
        "syncPolicy",
        "strategy",
        "goTemplate",
        "goTemplateOptions",
        "preservedFields",
        "ignoreApplicationDifferences",
        "applyNestedSelectors",
      ].map((field) => `spec.${field}`),
      "spec.syncPolicy.applicationsSync",
      "spec.strategy.rollingSync.steps.[].maxUpdate",
      "spec.generators.[].list",
      "spec.generators.[].matrix",
      "spec.generators.[].matrix.generators.[].git",
      "spec.generators.[].git.template",
      "spec.template.metadata",
      "spec.template.metadata.name",
      "spec.template.spec",
      "spec.template.spec.project",
      "spec.template.spec.destination.server",
      "spec.template.spec.source.repoURL",
      "spec.template.spec.syncPolicy.automated",
    ].map((path) => ({ path })),
  )("the ApplicationSet CRD describes $path", ({ path }) => {
    expect(at(appset, path)["description"]).toEqual(expect.stringMatching(/\S/));
  });

  it("describes a generator's own template, not the main template, where it overrides it", () => {
    expect(at(appset, "spec.generators.[].list.template")["description"]).not.toEqual(at(appset, "spec.template")["description"]);
  });

  it("carries the Application spec's descriptions into the Application CRD", () => {
    expect(at(app, "spec.project")["description"]).toBe(at(appset, "spec.template.spec.project")["description"]);
  });
});

describe("the example objects against the CRDs", () => {
  it.each([
    { name: FIXTURES.applicationSetAllGenerators, schema: appset },
    { name: FIXTURES.applicationSetRollingSync, schema: appset },
    { name: FIXTURES.applicationWithStatus, schema: app },
    { name: FIXTURES.appProject, schema: project },
  ])("every field of $name is declared, so the apiserver prunes nothing", ({ name, schema }) => {
    expect(undeclaredPaths(schema, loadFixture(name))).toEqual([]);
  });

  it("reports the path of a field the schema would prune", () => {
    const obj = loadFixture(FIXTURES.applicationSetRollingSync);
    (obj["spec"] as Record<string, unknown>)["strategy"] = { type: "RollingSync", typo: 1 };
    expect(undeclaredPaths(appset, obj)).toEqual(["spec.strategy.typo"]);
  });
});
