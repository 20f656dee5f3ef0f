import { describe, expect, it } from "vitest";
import type { ApplicationSource } from "../../api/index.js";
import { sourceTypeOf } from "./source-type.js";

const src = (extra: Partial<ApplicationSource> = {}): ApplicationSource => ({ repoURL: "r", ...extra });

describe("the type of a source", () => {
  it.each([
    { name: "plain files are a Directory", source: src(), names: ["a.yaml", "values.yaml"], want: "Directory" },
    { name: "Chart.yaml makes a Helm chart", source: src(), names: ["Chart.yaml", "values.yaml"], want: "Helm" },
    { name: "a name ending in Chart.yaml counts too", source: src(), names: ["MyChart.yaml"], want: "Helm" },
    { name: "kustomization.yaml makes Kustomize", source: src(), names: ["kustomization.yaml"], want: "Kustomize" },
    { name: "kustomization.yml makes Kustomize", source: src(), names: ["kustomization.yml"], want: "Kustomize" },
    { name: "a file named Kustomization makes Kustomize", source: src(), names: ["Kustomization"], want: "Kustomize" },
    { name: "a kustomization wins over a chart", source: src(), names: ["Chart.yaml", "kustomization.yaml"], want: "Kustomize" },
    { name: "a helm block names Helm whatever the files", source: src({ helm: {} }), names: ["a.yaml"], want: "Helm" },
    { name: "a kustomize block names Kustomize", source: src({ kustomize: {} }), names: ["Chart.yaml"], want: "Kustomize" },
    { name: "a directory block names a Directory", source: src({ directory: {} }), names: ["Chart.yaml"], want: "Directory" },
    { name: "a plugin block names a Plugin", source: src({ plugin: {} }), names: [], want: "Plugin" },
  ])("$name", ({ source, names, want }) => {
    expect(sourceTypeOf(source, names)).toBe(want);
  });

  it("fails on two blocks with Argo CD's message, in its order", () => {
    expect(() => sourceTypeOf(src({ helm: {}, directory: {}, kustomize: {} }), [])).toThrow(
      "error getting app source type: multiple application sources defined: Kustomize,Helm,Directory",
    );
  });
});
