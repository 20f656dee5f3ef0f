import { describe, expect, it } from "vitest";
import { TemplateEngine, TemplateRenderError } from "./engine.js";
import { renderApplication, RESOURCES_FINALIZER, type Json } from "./render.js";

const engine = (): TemplateEngine => new TemplateEngine({ now: () => 0 });
const tmpl: { [k: string]: Json } = {
  metadata: { name: "{{ .name }}-app", labels: { "team-{{ .team }}": "{{ .team }}", gone: null }, annotations: {} },
  spec: {
    project: "default",
    source: { repoURL: "https://x", helm: { parameters: [{ name: "a", value: "{{ .n }}" }] } },
    replicas: 3,
    flag: true,
  },
};

describe("renderApplication", () => {
  it.each([
    {
      name: "renders strings and map keys, drops null map entries, copies non-strings",
      params: { name: "a", team: "x", n: 2 },
      preserve: false,
      want: {
        metadata: { name: "a-app", labels: { "team-x": "x" }, annotations: {}, finalizers: [RESOURCES_FINALIZER] },
        spec: {
          project: "default",
          source: { repoURL: "https://x", helm: { parameters: [{ name: "a", value: "2" }] } },
          replicas: 3,
          flag: true,
        },
      },
    },
    {
      name: "adds no finalizer when resources are preserved",
      params: { name: "a", team: "x", n: 2 },
      preserve: true,
      want: {
        metadata: { name: "a-app", labels: { "team-x": "x" }, annotations: {} },
        spec: {
          project: "default",
          source: { repoURL: "https://x", helm: { parameters: [{ name: "a", value: "2" }] } },
          replicas: 3,
          flag: true,
        },
      },
    },
    { name: "returns the template verbatim for an empty param set", params: {}, preserve: false, want: tmpl },
  ])("$name", ({ params, preserve, want }) => {
    expect(renderApplication(engine(), tmpl, params, { goTemplate: true, preserveResourcesOnDeletion: preserve })).toEqual(want);
  });

  it("names the field and position when a template fails", () => {
    const bad = { metadata: { name: "ok" }, spec: { destination: { server: "{{ .missing.x }}" } } };
    let err: unknown;
    try {
      renderApplication(engine(), bad, { a: 1 }, { goTemplate: true, goTemplateOptions: ["missingkey=error"] });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(TemplateRenderError);
    expect((err as TemplateRenderError).field).toBe("spec.destination.server");
    expect((err as TemplateRenderError).message).toBe(
      'failed to execute go template {{ .missing.x }}: template: base:1:11: executing "base" at <.missing.x>: map has no entry for key "missing"',
    );
  });
});
