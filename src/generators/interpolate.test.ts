import { describe, expect, it } from "vitest";
import { TemplateEngine } from "../template/index.js";
import { interpolateEntry } from "./interpolate.js";

const engine = new TemplateEngine({ now: () => 0 });
const go = { goTemplate: true, options: [] as string[] };

describe("interpolateEntry (a matrix child rendered with the first child's parameters)", () => {
  it.each([
    {
      name: "renders strings and keys, leaves a values entry with a missing key verbatim, keeps values keys as written",
      entry: { git: { repoURL: "{{.repo}}", values: { "{{.repo}}": "{{.repo}}-{{.later}}", keep: "{{.nested.field}}" } } },
      want: { git: { repoURL: "r", values: { "{{.repo}}": "{{.repo}}-{{.later}}", keep: "{{.nested.field}}" } } },
    },
    {
      name: "a values entry that fails otherwise names its key",
      entry: { list: { values: { broken: '{{ fail "no" }}' } } },
      error: 'failed to replace parameters in generator: failed to pre-resolve Values key "broken": ',
    },
  ])("$name", ({ entry, want, error }) => {
    const run = () => interpolateEntry(entry, { repo: "r", nested: "x" }, go, engine);
    if (error !== undefined) expect(run).toThrow(error);
    else expect(run()).toEqual(want);
  });
});
