import { describe, expect, it } from "vitest";
import { mergeTemplate } from "./override.js";
import type { Json } from "./render.js";

describe("mergeTemplate (generator template override)", () => {
  it.each([
    {
      name: "fills zero-valued generator fields from spec.template",
      gen: { metadata: { name: "" }, spec: { project: "" } },
      base: { metadata: { name: "n" }, spec: { project: "p" } },
      want: { metadata: { name: "n" }, spec: { project: "p" } },
    },
    {
      name: "keeps non-zero generator fields",
      gen: { spec: { project: "mine" } },
      base: { spec: { project: "p", x: 1 } },
      want: { spec: { project: "mine", x: 1 } },
    },
    {
      name: "merges maps key-wise with the generator winning",
      gen: { metadata: { labels: { a: "g" } } },
      base: { metadata: { labels: { a: "b", c: "d" } } },
      want: { metadata: { labels: { a: "g", c: "d" } } },
    },
    {
      name: "cannot reset a field to false or empty",
      gen: { spec: { flag: false, list: [] } },
      base: { spec: { flag: true, list: ["x"] } },
      want: { spec: { flag: true, list: ["x"] } },
    },
  ])("$name", ({ gen, base, want }) => {
    expect(mergeTemplate(gen as unknown as Json, base as unknown as Json)).toEqual(want);
  });
});
