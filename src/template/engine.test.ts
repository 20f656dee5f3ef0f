import { describe, expect, it } from "vitest";
import { TemplateEngine, TemplateRenderError } from "./engine.js";

const make = (): TemplateEngine => new TemplateEngine({ now: () => 0, clock: () => performance.now() });

describe("TemplateEngine budget", () => {
  it.each([
    { name: "an unbounded range", template: "{{ range 100000000000 }}x{{ end }}" },
    { name: "a huge string", template: '{{ repeat 1000000000 "abc" }}' },
    { name: "a very large output", template: "{{ range 10000000 }}0123456789{{ end }}" },
    { name: "infinite template recursion", template: '{{ define "r" }}{{ template "r" . }}{{ end }}{{ template "r" . }}' },
  ])("stops $name with a budget error in under a second", ({ template }) => {
    const start = performance.now();
    let err: unknown;
    try {
      make().replace(template, { a: 1 }, true);
    } catch (e) {
      err = e;
    }
    expect(performance.now() - start).toBeLessThan(1000);
    expect(err).toBeInstanceOf(TemplateRenderError);
    expect((err as TemplateRenderError).budget).toBe(true);
    expect((err as TemplateRenderError).message).toContain("render budget exceeded");
  });
});

describe("TemplateEngine compile cache", () => {
  it("parses each distinct field once across many parameter sets", () => {
    const engine = make();
    const fields = ["{{ .name }}", "{{ .name | upper }}-x", "{{ .n }}"];
    for (let i = 0; i < 10_000; i++) for (const f of fields) engine.replace(f, { name: `app-${i}`, n: i }, true);
    expect(engine.cacheEntries).toBe(3);
  });

  it("keys the cache by options as well as text", () => {
    const engine = make();
    expect(engine.replace("{{ .x }}", {}, true)).toBe("<no value>");
    expect(() => engine.replace("{{ .x }}", {}, true, ["missingkey=error"])).toThrow(TemplateRenderError);
  });
});
