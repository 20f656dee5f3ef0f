/**
 * List generator (docs/generators.md#list): one parameter set per element of `elements`, then per
 * item of the YAML list in `elementsYaml`. In fasttemplate mode element values must be strings (a
 * `values` object becomes `values.<k>` keys); in goTemplate mode elements are used as they are.
 */
import { yaml } from "../yaml.js";
import { isRecord, type ListGenerator } from "../api/index.js";
import { notObjectsError, yamlSyntaxError } from "../api/go-decode.js";
import { GeneratorError } from "./errors.js";
import { cloneJson } from "./params.js";
import { templateMode, type Generator, type ParamSet } from "./types.js";

function fastElement(element: Record<string, unknown>): ParamSet {
  const out: ParamSet = {};
  for (const [k, v] of Object.entries(element)) {
    if (k === "values") {
      if (!isRecord(v)) throw new GeneratorError("error parsing values map");
      for (const [vk, vv] of Object.entries(v)) {
        if (typeof vv !== "string") throw new GeneratorError("error parsing values map");
        out[`values.${vk}`] = vv;
      }
    } else if (typeof v === "string") {
      out[k] = v;
    } else {
      throw new GeneratorError("error parsing value as string %!w(<nil>)");
    }
  }
  return out;
}

function elementsFromYaml(text: string): ParamSet[] {
  let doc: unknown;
  try {
    doc = yaml().parse(text);
  } catch (err) {
    throw new GeneratorError(`error unmarshling decoded ElementsYaml ${yamlSyntaxError(err)}`);
  }
  if (doc === null || doc === undefined) return [];
  // Decoded into Go's []map[string]interface{}: its errors, in its words.
  if (!Array.isArray(doc)) throw new GeneratorError(`error unmarshling decoded ElementsYaml ${notObjectsError(doc)}`);
  return doc.map((item: unknown, i) => {
    if (item === null) return {};
    if (!isRecord(item)) throw new GeneratorError(`error unmarshling decoded ElementsYaml ${notObjectsError(item, i)}`);
    return item;
  });
}

function listParams(spec: ListGenerator, goTemplate: boolean): ParamSet[] {
  const out: ParamSet[] = [];
  for (const element of spec.elements ?? []) {
    if (!isRecord(element)) throw new GeneratorError(`error unmarshling list element: expected an object, got ${JSON.stringify(element)}`);
    out.push(goTemplate ? cloneJson(element) : fastElement(element));
  }
  if (spec.elementsYaml !== undefined && spec.elementsYaml.trim() !== "") out.push(...elementsFromYaml(spec.elementsYaml));
  return out;
}

/** The List generator. */
export const listGenerator: Generator<ListGenerator> = {
  generate: (spec, appSet) => Promise.resolve().then(() => listParams(spec, templateMode(appSet).goTemplate)),
  requeueAfterMs: () => 0,
  template: (spec) => spec.template,
};
