/**
 * Checks the YAML and JSON of documentation examples: every document parses, and every object of a
 * kind the project knows is valid against its zod schema in src/api (cluster Secrets are also
 * decoded). A fragment can name the schema it must satisfy instead (`generator`, `status`, ...).
 */
import { parseAllDocuments } from "yaml";
import {
  applicationSetGeneratorSchema,
  applicationSetStatusSchema,
  applicationSetStrategySchema,
  decodeClusterSecret,
  isClusterSecret,
  isRecord,
  parseAppProject,
  parseApplication,
  parseApplicationSet,
  parseRolloutPolicy,
  parseRolloutRun,
  parseSecret,
  parseWith,
  type ParseResult,
} from "../../../src/api/index.js";

import { resolvePolicy } from "../../../src/progressivesync/safety/index.js";

/** Schemas a fragment may be checked against (`<!-- example: yaml generator -->`). */
const FRAGMENTS: Record<string, (v: unknown) => ParseResult<unknown>> = {
  generator: (v) => parseWith(applicationSetGeneratorSchema, v, "generator"),
  status: (v) => parseWith(applicationSetStatusSchema, v, "ApplicationSet status"),
  strategy: (v) => parseWith(applicationSetStrategySchema, v, "ApplicationSet strategy"),
};

/** The names `validateYaml` accepts as a fragment schema. */
export const FRAGMENT_SCHEMAS: readonly string[] = Object.keys(FRAGMENTS);

/** Every document of a YAML (or JSON) text; a syntax error throws. */
export function yamlDocuments(text: string): unknown[] {
  return parseAllDocuments(text).map((doc) => {
    if (doc.errors.length > 0) throw new Error(`YAML does not parse: ${doc.errors[0]!.message}`);
    return doc.toJS() as unknown;
  });
}

function check<T>(res: ParseResult<T>): T {
  if (!res.ok) throw res.error;
  return res.value;
}

/** Validates one Kubernetes object by its kind; kinds the project does not model need only their identity. */
export function validateObject(obj: unknown): void {
  if (!isRecord(obj)) throw new Error(`expected an object, got ${JSON.stringify(obj)}`);
  const kind = obj["kind"];
  if (typeof obj["apiVersion"] !== "string" || typeof kind !== "string") throw new Error("an object needs apiVersion and kind");
  const meta = obj["metadata"];
  if (!isRecord(meta) || typeof meta["name"] !== "string") throw new Error(`${kind} needs metadata.name`);
  switch (kind) {
    case "ApplicationSet":
      check(parseApplicationSet(obj));
      return;
    case "Application":
      check(parseApplication(obj));
      return;
    case "AppProject":
      check(parseAppProject(obj));
      return;
    case "RolloutPolicy": {
      const problems = resolvePolicy(check(parseRolloutPolicy(obj))).problems;
      if (problems.length > 0) throw new Error(`RolloutPolicy ${String(meta["name"])}: ${problems.join("; ")}`);
      return;
    }
    case "RolloutRun":
      check(parseRolloutRun(obj));
      return;
    case "Secret": {
      const secret = check(parseSecret(obj));
      if (isClusterSecret(secret)) check(decodeClusterSecret(secret));
      return;
    }
    case "ConfigMap": {
      const data = obj["data"] ?? {};
      if (!isRecord(data) || !Object.values(data).every((v) => typeof v === "string"))
        throw new Error(`ConfigMap ${meta["name"]}: data values must be strings`);
      return;
    }
  }
}

/**
 * Validates a YAML or JSON example: with `schema`, every document against that fragment schema;
 * otherwise every document (and every item of a List or array) as a Kubernetes object.
 */
export function validateYaml(text: string, schema?: string): void {
  for (const doc of yamlDocuments(text)) {
    if (schema !== undefined) {
      const parse = FRAGMENTS[schema];
      if (parse === undefined) throw new Error(`unknown schema "${schema}" (known: ${FRAGMENT_SCHEMAS.join(", ")})`);
      check(parse(doc));
      continue;
    }
    const items = Array.isArray(doc) ? doc : isRecord(doc) && Array.isArray(doc["items"]) ? doc["items"] : [doc];
    for (const item of items) validateObject(item);
  }
}
