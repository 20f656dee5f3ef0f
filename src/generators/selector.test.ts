import { describe, expect, it } from "vitest";
import { appSet, context } from "../../test/unit/generators/builders.js";
import { createGeneratorRegistry } from "./registry.js";
import { generateParams } from "./generate.js";
import { compileSelector, POST_SELECTOR } from "./selector.js";
import type { ApplicationSetGenerator, LabelSelector } from "../api/index.js";

const labels = { env: "prod", url: "https://1.2.3.4", tier: "web" };

describe("label selectors", () => {
  it.each([
    // name; selector; expected match against `labels`
    { name: "a missing selector matches everything", selector: undefined, want: true },
    { name: "an empty selector matches everything", selector: {}, want: true },
    { name: "matchLabels require equal values", selector: { matchLabels: { env: "prod" } }, want: true },
    { name: "a different value does not match", selector: { matchLabels: { env: "dev" } }, want: false },
    {
      name: "In matches a listed value",
      selector: { matchExpressions: [{ key: "tier", operator: "In", values: ["web", "db"] }] },
      want: true,
    },
    {
      name: "NotIn matches an absent key",
      selector: { matchExpressions: [{ key: "zone", operator: "NotIn", values: ["a"] }] },
      want: true,
    },
    { name: "Exists needs the key", selector: { matchExpressions: [{ key: "zone", operator: "Exists" }] }, want: false },
    { name: "DoesNotExist needs the key absent", selector: { matchExpressions: [{ key: "zone", operator: "DoesNotExist" }] }, want: true },
    { name: "the post-selector accepts URL values", selector: { matchLabels: { url: "https://1.2.3.4" } }, want: true },
  ])("$name", ({ selector, want }) => {
    expect(compileSelector(selector as LabelSelector | undefined, POST_SELECTOR)(labels)).toBe(want);
  });

  it.each([
    {
      name: "an unknown operator",
      selector: { matchExpressions: [{ key: "a", operator: "Gt", values: ["1"] }] },
      error: '"Gt" is not a valid pod selector operator',
    },
    { name: "In without values", selector: { matchExpressions: [{ key: "a", operator: "In" }] }, error: "values set can't be empty" },
    {
      name: "Exists with values",
      selector: { matchExpressions: [{ key: "a", operator: "Exists", values: ["x"] }] },
      error: "values set must be empty",
    },
    { name: "an invalid key", selector: { matchLabels: { "bad key": "x" } }, error: "name part must consist of alphanumeric characters" },
  ])("rejects $name", ({ selector, error }) => {
    expect(() => compileSelector(selector, POST_SELECTOR)).toThrow(error);
  });

  it("rejects URL values where Kubernetes label values are required", () => {
    expect(() => compileSelector({ matchLabels: { url: "https://x" } }, { strictValues: true, operatorNoun: "label" })).toThrow(
      /a valid label must be/,
    );
  });
});

describe("the post-selector on a generator entry", () => {
  const registry = createGeneratorRegistry();
  const run = (entry: ApplicationSetGenerator, goTemplate: boolean) => generateParams(appSet([entry], { goTemplate }), context(), registry);

  it.each([
    // name; mode; entry; expected kept parameter sets
    {
      name: "matches flattened nested parameters in goTemplate mode",
      goTemplate: true,
      entry: {
        list: {
          elements: [
            { c: { env: "prod" }, n: 1 },
            { c: { env: "dev" }, n: 2 },
          ],
        },
        selector: { matchLabels: { "c.env": "prod" } },
      },
      want: [{ c: { env: "prod" }, n: 1 }],
    },
    {
      name: "matches list items by index",
      goTemplate: true,
      entry: { list: { elements: [{ tags: ["a", "b"] }, { tags: ["c"] }] }, selector: { matchLabels: { "tags.1": "b" } } },
      want: [{ tags: ["a", "b"] }],
    },
    {
      name: "matches fasttemplate parameters",
      goTemplate: false,
      entry: {
        list: { elements: [{ env: "prod" }, { env: "dev" }] },
        selector: { matchExpressions: [{ key: "env", operator: "NotIn", values: ["dev"] }] },
      },
      want: [{ env: "prod" }],
    },
  ])("$name", async ({ goTemplate, entry, want }) => {
    const [res] = await run(entry as ApplicationSetGenerator, goTemplate);
    expect(res!.params).toEqual(want);
  });

  it("fails with the spec's wrapping on an invalid operator", async () => {
    const entry = { list: { elements: [{ a: "1" }] }, selector: { matchExpressions: [{ key: "a", operator: "Like", values: ["1"] }] } };
    await expect(run(entry, false)).rejects.toThrow('error parsing label selector: "Like" is not a valid pod selector operator');
  });
});
