import { describe, expect, it } from "vitest";
import { appSet, context } from "../../test/unit/generators/builders.js";
import { listGenerator } from "./list.js";
import type { ListGenerator } from "../api/index.js";

describe("the List generator", () => {
  it.each([
    // name; goTemplate mode; the generator spec; expected parameter sets
    {
      name: "fasttemplate elements become string parameter sets with values flattened",
      goTemplate: false,
      spec: { elements: [{ cluster: "engineering-dev", url: "https://1.2.3.4", values: { env: "dev" } }] },
      want: [{ cluster: "engineering-dev", url: "https://1.2.3.4", "values.env": "dev" }],
    },
    {
      name: "goTemplate elements are used as they are, nested values included",
      goTemplate: true,
      spec: { elements: [{ cluster: "c", replicas: 3, nested: { a: [1, 2] } }] },
      want: [{ cluster: "c", replicas: 3, nested: { a: [1, 2] } }],
    },
    {
      name: "an empty element yields an empty parameter set",
      goTemplate: false,
      spec: { elements: [{}] },
      want: [{}],
    },
    {
      name: "elementsYaml items are appended after elements without string coercion",
      goTemplate: false,
      spec: { elements: [{ a: "1" }], elementsYaml: "- a: '2'\n- a: 3\n" },
      want: [{ a: "1" }, { a: "2" }, { a: 3 }],
    },
    {
      name: "no elements yield no parameter sets",
      goTemplate: true,
      spec: { elements: [] },
      want: [],
    },
  ])("$name", async ({ goTemplate, spec, want }) => {
    await expect(listGenerator.generate(spec as ListGenerator, appSet([], { goTemplate }), context())).resolves.toEqual(want);
  });

  it.each([
    {
      name: "a non-string value fails in fasttemplate mode",
      spec: { elements: [{ n: 1 }] },
      message: "error parsing value as string %!w(<nil>)",
    },
    {
      name: "a non-object values key fails in fasttemplate mode",
      spec: { elements: [{ values: "x" }] },
      message: "error parsing values map",
    },
    { name: "malformed elementsYaml fails", spec: { elementsYaml: "a: [" }, message: /^error unmarshling decoded ElementsYaml / },
    { name: "elementsYaml that is not a list fails", spec: { elementsYaml: "a: b" }, message: /^error unmarshling decoded ElementsYaml / },
  ])("$name", async ({ spec, message }) => {
    await expect(listGenerator.generate(spec as ListGenerator, appSet([]), context())).rejects.toThrow(message);
  });

  it("never asks for a periodic requeue", () => {
    expect(listGenerator.requeueAfterMs({ elements: [] }, context().settings)).toBe(0);
  });
});
