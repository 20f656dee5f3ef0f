import { describe, expect, it } from "vitest";
import { TemplateEngine, TemplateRenderError } from "../engine.js";

const render = (template: string, params: Record<string, unknown>, options: string[] = []): string =>
  new TemplateEngine({ now: () => 0 }).replace(template, params, true, options);

/** The message of the error `run` throws. */
function errorOf(run: () => unknown): string {
  try {
    run();
  } catch (e) {
    expect(e).toBeInstanceOf(TemplateRenderError);
    return (e as TemplateRenderError).message;
  }
  throw new Error("expected the rendering to fail");
}

/** Argo CD's prefix for a failing call of tpl at `col` of a one-line template. */
const calling = (template: string, at: string, col = 3): string =>
  `failed to execute go template ${template}: template: base:1:${col}: executing "base" at <${at}>: error calling tpl: `;

describe("tpl", () => {
  it.each([
    {
      name: "renders a string as a template over the data it is given",
      // template: the field being rendered; params: the parameter set; options: goTemplateOptions
      template: '{{ tpl "{{.value}}" . }}',
      params: { value: "hello world" },
      // want: the rendered field
      want: "hello world",
    },
    {
      name: "renders a template held in a parameter, which may call tpl itself",
      template: "{{ tpl .a . }}",
      params: { a: "{{ tpl .b . }}", b: "{{ .c }}", c: "deep" },
      want: "deep",
    },
    {
      name: "allows three nested calls",
      template: "{{ tpl .l1 . }}",
      params: { l1: "1{{ tpl .l2 . }}", l2: "2{{ tpl .l3 . }}", l3: "3{{ .v }}", v: "!" },
      want: "123!",
    },
    {
      name: "counts depth per chain, so calls side by side are all allowed",
      template: '{{ tpl "{{ .foo }}" . }}-{{ tpl "{{ .bar }}" . }}',
      params: { foo: "foo", bar: "bar" },
      want: "foo-bar",
    },
    {
      name: "executes over the data argument: both dot and $ are that data",
      template: '{{ tpl "{{ .name }}/{{ $.name }}" .sub }}',
      params: { sub: { name: "inner" }, name: "outer" },
      want: "inner/inner",
    },
    {
      name: "has the full function map, toYaml and tpl included",
      template: "{{ tpl (toYaml .vals) . }}",
      params: { vals: { name: "{{ .app | upper }}" }, app: "web" },
      want: "name: 'WEB'",
    },
    {
      name: "takes the data as the last argument of a pipeline",
      template: '{{ .v | tpl "[{{ . }}]" }}',
      params: { v: "piped" },
      want: "[piped]",
    },
    {
      name: "prints nothing for a missing key with missingkey=default",
      template: '{{ tpl "{{.DoesNotExist}}" . }}',
      options: ["missingkey=default"],
      want: "",
    },
    {
      name: "prints nothing for a missing key with missingkey=zero",
      template: '{{ tpl "{{.DoesNotExist}}" . }}',
      options: ["missingkey=zero"],
      want: "",
    },
    {
      name: "strips every <no value> from the nested output, data included, but not from the outer template",
      template: '{{ .missing }}-{{ tpl "{{ .missing }}|{{ .v }}" . }}',
      params: { v: "a<no value>b<no <no value>value>c" },
      want: "<no value>-|ab<no value>c",
    },
    {
      name: "sees the templates the outer text defines",
      template: '{{ define "x" }}X{{ .v }}{{ end }}{{ tpl "{{ template \\"x\\" . }}" . }}',
      params: { v: "1" },
      want: "X1",
    },
    {
      name: "overrides an outer definition for the nested template only",
      template: '{{ define "x" }}P{{ end }}{{ tpl "{{ define \\"x\\" }}N{{ end }}{{ template \\"x\\" }}" . }}{{ template "x" }}',
      want: "NP",
    },
    {
      name: "keeps an outer definition that the nested text redefines as blank",
      template: '{{ define "x" }}P{{ end }}{{ tpl "{{ define \\"x\\" }} {{ end }}{{ template \\"x\\" }}" . }}',
      want: "P",
    },
    {
      name: "renders empty, blank and comment-only texts as they are",
      template: '{{ tpl "" . }}|{{ tpl "  " . }}|{{ tpl "{{/* c */}}" . }}',
      want: "|  |",
    },
    {
      name: "executes a definition named base when the main text is blank",
      template: '{{ tpl "{{ define \\"base\\" }}B{{ end }}" . }}',
      want: "B",
    },
    {
      name: "treats nil data as no data",
      template: '{{ tpl "{{ . }}" nil }}|{{ tpl "{{ .a }}" .missing }}|{{ tpl "{{ .a }}" .n }}',
      params: { n: null },
      want: "||",
    },
  ])("$name", ({ template, params = {}, options = [], want }) => {
    expect(render(template, params, options)).toBe(want);
  });

  it.each([
    {
      name: "stops a fourth nested call",
      template: "{{ tpl .l1 . }}",
      params: { l1: "1{{ tpl .l2 . }}", l2: "2{{ tpl .l3 . }}", l3: "3{{ tpl .l4 . }}", l4: "4" },
      // want: the whole error message, as Argo CD words it
      want:
        calling("{{ tpl .l1 . }}", "tpl .l1 .") +
        'error during tpl function execution for "1{{ tpl .l2 . }}": template: base:1:4: executing "base" at <tpl .l2 .>: error calling tpl: ' +
        'error during tpl function execution for "2{{ tpl .l3 . }}": template: base:1:4: executing "base" at <tpl .l3 .>: error calling tpl: ' +
        'error during tpl function execution for "3{{ tpl .l4 . }}": template: base:1:4: executing "base" at <tpl .l4 .>: error calling tpl: ' +
        "maximum recursion depth 3 exceeded in tpl function",
    },
    {
      name: "stops a template that renders itself (Argo CD's own case)",
      template: "{{ tpl .self . }}",
      params: { self: "{{ tpl .self . }}" },
      want:
        calling("{{ tpl .self . }}", "tpl .self .") +
        `${'error during tpl function execution for "{{ tpl .self . }}": template: base:1:3: executing "base" at <tpl .self .>: error calling tpl: '.repeat(3)}` +
        "maximum recursion depth 3 exceeded in tpl function",
    },
    {
      name: "inherits missingkey=error",
      template: '{{ tpl "{{.DoesNotExist}}" . }}',
      params: { value: "hello world" },
      options: ["missingkey=error"],
      want:
        calling('{{ tpl "{{.DoesNotExist}}" . }}', 'tpl "{{.DoesNotExist}}" .') +
        'error during tpl function execution for "{{.DoesNotExist}}": template: base:1:2: executing "base" at <.DoesNotExist>: map has no entry for key "DoesNotExist"',
    },
    {
      name: "reports an unclosed action of the nested text",
      template: '{{ tpl "{{ .x " . }}',
      params: { x: 1 },
      want: calling('{{ tpl "{{ .x " . }}', 'tpl "{{ .x " .') + 'cannot parse template "{{ .x ": template: base:1: unclosed action',
    },
    {
      name: "reports an unknown function in the nested text",
      template: '{{ tpl "{{ nope }}" . }}',
      params: { x: 1 },
      want:
        calling('{{ tpl "{{ nope }}" . }}', 'tpl "{{ nope }}" .') +
        'cannot parse template "{{ nope }}": template: base:1: function "nope" not defined',
    },
    {
      name: "positions an execution error in the nested text",
      template: '{{ tpl "a\\n{{ fail \\"boom\\" }}" . }}',
      params: { x: 1 },
      want:
        calling('{{ tpl "a\\n{{ fail \\"boom\\" }}" . }}', 'tpl "a\\n{{ fail \\"boom\\" }}" .') +
        'error during tpl function execution for "a\\n{{ fail \\"boom\\" }}": template: base:2:3: executing "base" at <fail "boom">: error calling fail: boom',
    },
    {
      name: "positions an error in an outer definition in the outer text",
      template: '{{ define "x" }}\n  {{ .v.w }}{{ end }}{{ tpl "{{ template \\"x\\" . }}" . }}',
      params: { a: 1 },
      options: ["missingkey=error"],
      want:
        'failed to execute go template {{ define "x" }}\n  {{ .v.w }}{{ end }}{{ tpl "{{ template \\"x\\" . }}" . }}: ' +
        'template: base:2:24: executing "base" at <tpl "{{ template \\"x\\" . }}" .>: error calling tpl: ' +
        'error during tpl function execution for "{{ template \\"x\\" . }}": template: base:2:7: executing "x" at <.v.w>: map has no entry for key "v"',
    },
    {
      name: "copies the top-level template at every depth, so a nested text's definitions are not seen deeper",
      template: "{{ tpl .a . }}",
      params: { a: '{{ define "y" }}Y{{ end }}{{ template "y" }}{{ tpl "{{ template \\"y\\" }}" . }}' },
      want:
        calling("{{ tpl .a . }}", "tpl .a .") +
        'error during tpl function execution for "{{ define \\"y\\" }}Y{{ end }}{{ template \\"y\\" }}{{ tpl \\"{{ template \\\\\\"y\\\\\\" }}\\" . }}": ' +
        'template: base:1:47: executing "base" at <tpl "{{ template \\"y\\" }}" .>: error calling tpl: ' +
        'error during tpl function execution for "{{ template \\"y\\" }}": template: base:1:12: executing "base" at <{{template "y"}}>: template "y" not defined',
    },
    {
      name: "wants a string as the text",
      template: "{{ tpl 1 . }}",
      params: { a: 1 },
      want: 'failed to execute go template {{ tpl 1 . }}: template: base:1:7: executing "base" at <1>: expected string; found 1',
    },
    {
      name: "with missingkey=error, fails on a key of nil data",
      template: '{{ tpl "{{ .a }}" .n }}',
      params: { n: null },
      options: ["missingkey=error"],
      want:
        calling('{{ tpl "{{ .a }}" .n }}', 'tpl "{{ .a }}" .n') +
        'error during tpl function execution for "{{ .a }}": template: base:1:3: executing "base" at <.a>: nil data; no entry for key "a"',
    },
  ])("$name", ({ template, params, options = [], want }) => {
    expect(errorOf(() => render(template, params, options))).toBe(want);
  });
});
