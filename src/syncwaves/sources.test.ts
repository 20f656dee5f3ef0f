import { describe, expect, it } from "vitest";
import type { Application, ApplicationSource } from "../api/index.js";
import { application } from "../../test/unit/syncwaves/builders.js";
import {
  hasMultipleSources,
  isRefOnly,
  referencedTargets,
  refTargets,
  refValueFile,
  revisionsFor,
  sourcesOf,
  type RefTarget,
} from "./sources.js";

const git = (over: Partial<ApplicationSource> = {}): ApplicationSource => ({ repoURL: "https://git.example.com/a.git", ...over });
const withSpec = (spec: Partial<Application["spec"]>): Application => {
  const app = application();
  return { ...app, spec: { ...app.spec, ...spec } };
};

describe("the sources of an Application", () => {
  it.each([
    {
      name: "a single source is the only one, and not multi-source",
      // spec fields set on top of the builder's single source
      spec: {},
      multi: false,
      repos: ["https://git.example.com/shop.git"],
    },
    {
      name: "spec.sources wins over spec.source, as in Argo CD",
      spec: { sources: [git({ repoURL: "one" }), git({ repoURL: "two" })] },
      multi: true,
      repos: ["one", "two"],
    },
    {
      name: "one entry in spec.sources is still multi-source",
      spec: { sources: [git({ repoURL: "one" })] },
      multi: true,
      repos: ["one"],
    },
    {
      name: "an empty spec.sources falls back to spec.source",
      spec: { sources: [] },
      multi: false,
      repos: ["https://git.example.com/shop.git"],
    },
  ])("$name", ({ spec, multi, repos }) => {
    const app = withSpec(spec);
    expect(hasMultipleSources(app)).toBe(multi);
    expect(sourcesOf(app).map((s) => s.repoURL)).toEqual(repos);
  });

  it.each([
    { name: "a ref without a path lends its repository only", source: git({ ref: "values" }), want: true },
    { name: "a ref with a path also renders", source: git({ ref: "values", path: "k8s" }), want: false },
    { name: "a ref with a chart renders the chart", source: git({ ref: "values", chart: "web" }), want: false },
    { name: "a source without a ref renders", source: git({ path: "" }), want: false },
  ])("$name", ({ source, want }) => {
    expect(isRefOnly(source)).toBe(want);
  });
});

describe("ref targets", () => {
  it("maps $<ref> to the source's repository at the revision asked for, else its targetRevision", () => {
    const sources = [git({ path: "chart" }), git({ repoURL: "v", ref: "values", targetRevision: "main" }), git({ repoURL: "w", ref: "w" })];
    expect(refTargets(sources, [undefined, "abc", undefined])).toEqual(
      new Map<string, RefTarget>([
        ["$values", { repoURL: "v", targetRevision: "abc" }],
        ["$w", { repoURL: "w", targetRevision: "" }],
      ]),
    );
    expect(refTargets(sources).get("$values")?.targetRevision).toBe("main");
  });

  it.each([
    {
      name: "refuses a ref with special characters",
      sources: [git({ ref: "my.values" })],
      message: "failed to get ref sources: sources.ref my.values cannot contain any special characters except '_' and '-'",
    },
    {
      name: "refuses two sources with the same ref",
      sources: [git({ ref: "v" }), git({ ref: "v" })],
      message: "failed to get ref sources: invalid sources: multiple sources had the same `ref` key",
    },
  ])("$name", ({ sources, message }) => {
    expect(() => refTargets(sources)).toThrow(message);
  });

  const refs = new Map<string, RefTarget>([
    ["$values", { repoURL: "v", targetRevision: "main" }],
    ["$charts", { repoURL: "c", targetRevision: "1.0.0", chart: "web" }],
  ]);

  it("collects the refs a Helm source's value files and file parameters name", () => {
    const helm = { valueFiles: ["values.yaml", "$values/envs/prod.yaml"], fileParameters: [{ name: "x", path: "$values/x.txt" }] };
    expect([...referencedTargets(helm, refs).keys()]).toEqual(["$values"]);
    expect(referencedTargets({ valueFiles: ["values.yaml"] }, new Map()).size).toBe(0);
  });

  it.each([
    {
      name: "a ref no source defines, when no source has one",
      valueFiles: ["$values/a.yaml"],
      refs: new Map<string, RefTarget>(),
      message: `source referenced "$values", but no source has a 'ref' field defined`,
    },
    {
      name: "a ref that is not one of the sources'",
      valueFiles: ["$other/a.yaml"],
      refs: new Map([...refs].filter(([k]) => k === "$values")),
      message: `source referenced "$other", which is not one of the available sources ($values)`,
    },
    {
      name: "a ref to a chart source",
      valueFiles: ["$charts/values.yaml"],
      refs,
      message: "source has a 'chart' field defined, but Helm charts are not yet not supported for 'ref' sources",
    },
  ])("refuses $name with Argo CD's message", ({ valueFiles, refs: given, message }) => {
    expect(() => referencedTargets({ valueFiles }, given)).toThrow(message);
  });
});

describe("a $ref value file inside the referenced repository", () => {
  const env = [{ name: "ARGOCD_APP_NAME", value: "shop" }];

  it.each([
    { name: "a path from the repository's root", file: "$values/envs/prod.yaml", want: { file: "envs/prod.yaml" } },
    {
      name: "variables substituted after the ref is dropped",
      file: "$values/envs/$ARGOCD_APP_NAME.yaml",
      want: { file: "envs/shop.yaml" },
    },
    { name: "a doubled slash stays inside the repository", file: "$values//etc/passwd", want: { file: "etc/passwd" } },
    { name: "`..` that stays inside", file: "$values/envs/../base.yaml", want: { file: "base.yaml" } },
  ])("resolves $name", ({ file, want }) => {
    expect(refValueFile(file, env)).toEqual(want);
  });

  it.each([
    {
      name: "a path that leaves the repository",
      file: "$values/../../etc/passwd",
      message: "error resolving value file path: file '/../../etc/passwd' resolved to outside repository root",
    },
    {
      name: "the repository's root itself",
      file: "$values",
      message: "error resolving value file path: internal error: failed to resolve path. Check logs for more details",
    },
  ])("refuses $name", ({ file, message }) => {
    expect(() => refValueFile(file, env)).toThrow(message);
  });
});

describe("the revisions a read asks for", () => {
  it.each([
    { name: "none given: the targets", given: undefined, want: [undefined, undefined] },
    { name: "one per source", given: ["a", "b"], want: ["a", "b"] },
    { name: "an empty entry: that source's target", given: ["", "b"], want: [undefined, "b"] },
    { name: "fewer than the sources: all targets, as Argo CD", given: ["a"], want: [undefined, undefined] },
  ])("$name", ({ given, want }) => {
    expect(revisionsFor([git(), git()], given)).toEqual(want);
  });
});
