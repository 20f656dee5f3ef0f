import { describe, expect, it } from "vitest";
import type { ApplicationSource } from "../api/application.js";
import { goSourceString, hydratorShapeErrors, sourceShapeError } from "./source-shape.js";

describe("sourceShapeError (a source's required fields)", () => {
  it.each([
    // source: the Application source
    // multiple: whether it is one of spec.sources
    // error: the expected message, undefined when well formed
    { name: "a source with a path is well formed", source: { repoURL: "https://g/r", path: "." }, multiple: false, error: undefined },
    {
      name: "a chart with a version is well formed",
      source: { repoURL: "https://h", chart: "c", targetRevision: "1.0.0" },
      multiple: false,
      error: undefined,
    },
    {
      name: "a single source without a path or a chart is refused",
      source: { repoURL: "https://g/r" },
      multiple: false,
      error: "spec.source.repoURL and either spec.source.path or spec.source.chart are required",
    },
    {
      name: "a single source without a repository is refused",
      source: { repoURL: "", path: "." },
      multiple: false,
      error: "spec.source.repoURL and either spec.source.path or spec.source.chart are required",
    },
    {
      name: "one of several sources may carry only a ref",
      source: { repoURL: "https://g/r", ref: "values" },
      multiple: true,
      error: undefined,
    },
    {
      name: "one of several sources without a path, a chart or a ref is refused and printed as Go does",
      source: { repoURL: "https://g/r", targetRevision: "main" },
      multiple: true,
      error:
        "spec.source.repoURL and either source.path, source.chart, or source.ref are required for source {https://g/r  main nil nil nil nil    }",
    },
    {
      name: "a chart without a version is refused",
      source: { repoURL: "https://h", chart: "c" },
      multiple: false,
      error: "spec.source.targetRevision is required if the manifest source is a helm chart",
    },
  ] satisfies Array<{ name: string; source: ApplicationSource; multiple: boolean; error: string | undefined }>)(
    "$name",
    ({ source, multiple, error }) => {
      expect(sourceShapeError(source, multiple)).toBe(error);
    },
  );

  it("prints a set tool setting as a pointer to its Go type", () => {
    expect(goSourceString({ repoURL: "r", helm: {} })).toBe("{r   &ApplicationSourceHelm{…} nil nil nil    }");
  });

  it("lists every missing field of a hydrator in order", () => {
    const hydrator = {
      drySource: { repoURL: "", targetRevision: "main", path: "." },
      syncSource: { targetBranch: "", path: "out" },
      hydrateTo: { targetBranch: "" },
    };
    expect(hydratorShapeErrors(hydrator)).toEqual([
      "spec.sourceHydrator.drySource.repoURL is required",
      "spec.sourceHydrator.syncSource.targetBranch is required",
      "when spec.sourceHydrator.hydrateTo is set, spec.sourceHydrator.hydrateTo.targetBranch is required",
    ]);
  });
});
