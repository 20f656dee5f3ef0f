/**
 * How Go reads YAML and JSON into its maps (sigs.k8s.io/yaml over go-yaml and encoding/json), in the
 * words Argo CD passes on: a syntax error is `yaml: line N: …` (the words after the line are our
 * parser's, docs/differential.md), a value of the wrong shape is encoding/json's `cannot unmarshal`.
 * Pure.
 */
import { yaml } from "../yaml.js";
import { errorMessage } from "../errors.js";

/** A YAML syntax error as go-yaml frames it. */
export function goYamlError(e: unknown): string {
  if (e instanceof yaml().YAMLError) {
    const line = e.linePos?.[0].line;
    const first = (e.message.split("\n")[0] ?? "").replace(/ at line \d+, column \d+:?$/, "");
    return `yaml: ${line === undefined ? "" : `line ${String(line)}: `}${first}`;
  }
  return `yaml: ${errorMessage(e)}`;
}

/** A YAML syntax error as sigs.k8s.io/yaml's Unmarshal reports it. */
export function yamlSyntaxError(e: unknown): string {
  return `error converting YAML to JSON: ${goYamlError(e)}`;
}

/** Go's JSON name of a value's kind. */
function jsonKind(v: unknown): string {
  if (Array.isArray(v)) return "array";
  if (v !== null && typeof v === "object") return "object";
  return typeof v === "boolean" ? "bool" : typeof v === "number" ? "number" : "string";
}

/** The decoding error of a value that is neither an object nor a list of objects (`at`: the list index, if any). */
export function notObjectsError(value: unknown, at?: number): string {
  const into = at === undefined ? "Go value of type []map[string]interface {}" : `.${String(at)} of type map[string]interface {}`;
  return `error unmarshaling JSON: while decoding JSON: json: cannot unmarshal ${jsonKind(value)} into ${into}`;
}
