import { describe, expect, it } from "vitest";
import { TemplateEngine, TemplateRenderError } from "./engine.js";

const make = (): TemplateEngine => new TemplateEngine({ now: () => 0 });
const UNBOUNDED = "{{ range 100000000000 }}x{{ end }}";

/** The error `render` throws, or undefined. */
function failure(render: () => unknown): unknown {
  try {
    render();
  } catch (e) {
    return e;
  }
  return undefined;
}

// How fast a runaway stops on the real clock is measured by bench/template-budget.ts.
describe("TemplateEngine budget", () => {
  it.each([
    // template: a runaway; limit: the budget it breaks first, as the error names it
    { name: "an unbounded range", template: UNBOUNDED, limit: "more than 1000000 evaluation steps" },
    { name: "a huge string", template: '{{ repeat 1000000000 "abc" }}', limit: "value larger than 4194304 characters" },
    { name: "a very large output", template: "{{ range 10000000 }}0123456789{{ end }}", limit: "output larger than 4194304 characters" },
    {
      name: "a range over until 100000000",
      template: "{{ range until 100000000 }}x{{ end }}",
      limit: "list of 100000000 elements, more than 100000",
    },
    { name: "until 1e9", template: "{{ until 1e9 }}", limit: "list of 1000000000 elements, more than 100000" },
    {
      name: "untilStep 0 1e9 1",
      template: "{{ range untilStep 0 1e9 1 }}{{ end }}",
      limit: "list of 1000000000 elements, more than 100000",
    },
    { name: "a falling untilStep", template: "{{ untilStep 0 -1000000 -3 }}", limit: "list of 333334 elements, more than 100000" },
    { name: "seq 1e8", template: "{{ seq 1e8 }}", limit: "list of 100000000 elements, more than 100000" },
    {
      name: "until 1e7 inside a 100-element list",
      template: "{{ range until 100 }}{{ range until 10000000 }}{{ end }}{{ end }}",
      limit: "list of 10000000 elements, more than 100000",
    },
    {
      name: "infinite template recursion",
      template: '{{ define "r" }}{{ template "r" . }}{{ end }}{{ template "r" . }}',
      limit: "template call depth above 200",
    },
    {
      name: "a loop of tpl calls, each within the step budget but not together",
      template: '{{ range 1000 }}{{ tpl "{{ range 1000 }}x{{ end }}" . }}{{ end }}',
      limit: "more than 1000000 evaluation steps",
    },
  ])("stops $name with a budget error naming the limit it broke", ({ template, limit }) => {
    const err = failure(() => make().replace(template, { a: 1 }, true));
    expect(err).toBeInstanceOf(TemplateRenderError);
    expect((err as TemplateRenderError).budget).toBe(true);
    expect((err as TemplateRenderError).message).toContain(`render budget exceeded: ${limit}`);
  });

  it("builds lists up to the limit: 100,000 elements", () => {
    expect(make().replace("{{ len (until 100000) }}|{{ len (untilStep 0 200000 2) }}", {}, true)).toBe("100000|100000");
  });

  it("stops a render that runs past the time budget of the injected clock", () => {
    // The clock moves 100 ms each time it is read, so the 500 ms budget runs out long before the step limit.
    let now = 0;
    const engine = new TemplateEngine({ now: () => 0, clock: () => (now += 100) });
    const err = failure(() => engine.replace(UNBOUNDED, {}, true));
    expect((err as TemplateRenderError).budget).toBe(true);
    expect((err as TemplateRenderError).message).toContain("render budget exceeded: more than 500 ms");
  });

  it("counts only the time that passed: on a clock that stands still the step limit stops the render", () => {
    const engine = new TemplateEngine({ now: () => 0, clock: () => 0 });
    expect((failure(() => engine.replace(UNBOUNDED, {}, true)) as TemplateRenderError).message).toContain(
      "more than 1000000 evaluation steps",
    );
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
