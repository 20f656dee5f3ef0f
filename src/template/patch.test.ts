import { describe, expect, it } from "vitest";
import { TemplateEngine } from "./engine.js";
import { applyTemplatePatch, mergePrimitiveList, renderTemplatePatch } from "./patch.js";

const app = {
  metadata: { name: "a", finalizers: ["f1"], labels: { x: "1" } },
  spec: { project: "p", source: { path: "a", helm: { valueFiles: ["v1"] } } },
};

describe("templatePatch", () => {
  it.each([
    {
      name: "merges objects and replaces lists",
      patch: "spec:\n  source:\n    helm:\n      valueFiles: [v2]\n",
      want: { ...app, spec: { project: "p", source: { path: "a", helm: { valueFiles: ["v2"] } } } },
    },
    {
      name: "merges metadata.finalizers, the patch's order first",
      patch: '{"metadata": {"finalizers": ["f2", "f1"]}}',
      want: { ...app, metadata: { ...app.metadata, finalizers: ["f2", "f1"] } },
    },
    { name: "deletes with null", patch: "metadata:\n  labels: null\n", want: { ...app, metadata: { name: "a", finalizers: ["f1"] } } },
    { name: "keeps spec.project", patch: "spec:\n  project: other\n", want: app },
  ])("$name", ({ patch, want }) => {
    expect(applyTemplatePatch(structuredClone(app), patch)).toEqual(want);
  });

  it.each([
    { live: ["r"], patch: ["p"], want: ["p", "r"] },
    { live: ["a", "b"], patch: ["b", "c"], want: ["a", "b", "c"] },
    { live: ["a", "b", "c"], patch: ["c", "a"], want: ["b", "c", "a"] },
    { live: [], patch: ["x", "x"], want: ["x"] },
  ])("merges finalizers $live with $patch as apimachinery does", ({ live, patch, want }) => {
    expect(mergePrimitiveList(live, patch)).toEqual(want);
  });

  it("renders the patch with the same engine and params", () => {
    const out = renderTemplatePatch(
      new TemplateEngine({ now: () => 0 }),
      structuredClone(app),
      "metadata:\n  labels:\n    env: '{{ .env | upper }}'\n",
      { params: { env: "prod" }, opts: { goTemplate: true } },
    );
    expect(out["metadata"]).toEqual({ name: "a", finalizers: ["f1"], labels: { x: "1", env: "PROD" } });
  });
});
