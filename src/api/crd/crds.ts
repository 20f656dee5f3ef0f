/**
 * The three CustomResourceDefinitions (ApplicationSet, Application, AppProject), built from the
 * zod schemas of `src/api` so the apiserver and the controller agree on every field. Names, short
 * names, scope, subresources and printer columns follow Argo CD's CRDs. The YAML committed under
 * `deploy/crds/` is this module's output (checked by `crds.test.ts`).
 */
import { stringify } from "yaml";
import { z } from "zod";
import { applicationSchema } from "../application.js";
import { applicationSetSchema } from "../applicationset.js";
import { appProjectSchema } from "../appproject.js";
import { API_GROUP, API_VERSION, Kind, Plural, ShortNames, Singular } from "../constants.js";
import { applicationSetTemplateSchema } from "../generators.js";
import { toStructural, type SchemaNode } from "./openapi.js";

/** A printer column of a CRD version. */
export interface PrinterColumn {
  readonly name: string;
  readonly type: "string" | "integer" | "date" | "boolean" | "number";
  readonly jsonPath: string;
  readonly priority?: number;
}

interface CrdInput {
  readonly kind: keyof typeof Plural;
  readonly description: string;
  readonly schema: z.ZodType;
  readonly statusSubresource: boolean;
  readonly printerColumns: readonly PrinterColumn[];
}

function jsonSchemaOf(schema: z.ZodType): SchemaNode {
  return z.toJSONSchema(schema, { reused: "inline", unrepresentable: "any", io: "input" });
}

/** A copy of a structural schema without its descriptions. */
function withoutDescriptions(node: SchemaNode): SchemaNode {
  const out: SchemaNode = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === "description") continue;
    if (key === "properties" && typeof value === "object" && value !== null) {
      out[key] = Object.fromEntries(Object.entries(value as Record<string, SchemaNode>).map(([k, v]) => [k, withoutDescriptions(v)]));
    } else if ((key === "items" || key === "additionalProperties") && typeof value === "object" && value !== null) {
      out[key] = withoutDescriptions(value as SchemaNode);
    } else {
      out[key] = value;
    }
  }
  return out;
}

/**
 * The structural schema of a generator override template (same requirements as the main one).
 * Its fields carry no descriptions: it is repeated under every generator at every level, and the
 * main `spec.template` already describes the same fields.
 */
function templateNode(): SchemaNode {
  return withoutDescriptions(toStructural(jsonSchemaOf(applicationSetTemplateSchema)));
}

/** The `openAPIV3Schema` of a resource: apiVersion/kind/metadata as Kubernetes requires, the rest converted. */
export function openApiSchemaOf(schema: z.ZodType, description: string): SchemaNode {
  const js = jsonSchemaOf(schema);
  const props = (js["properties"] ?? {}) as Record<string, SchemaNode>;
  const template = templateNode();
  const properties: SchemaNode = {
    apiVersion: { type: "string" },
    kind: { type: "string" },
    metadata: { type: "object" },
  };
  for (const key of Object.keys(props).sort()) {
    const child = props[key];
    if (child !== undefined && !(key in properties)) properties[key] = toStructural(child, { template });
  }
  const required = ((js["required"] ?? []) as string[]).filter((k) => k !== "apiVersion" && k !== "kind").sort();
  return { description, type: "object", properties, required };
}

function buildCrd(input: CrdInput): SchemaNode {
  const plural = Plural[input.kind];
  const version: SchemaNode = { name: API_VERSION, served: true, storage: true };
  if (input.printerColumns.length > 0) version["additionalPrinterColumns"] = input.printerColumns;
  version["schema"] = { openAPIV3Schema: openApiSchemaOf(input.schema, input.description) };
  if (input.statusSubresource) version["subresources"] = { status: {} };
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: {
      name: `${plural}.${API_GROUP}`,
      labels: { "app.kubernetes.io/name": `${plural}.${API_GROUP}`, "app.kubernetes.io/part-of": "argocd" },
    },
    spec: {
      group: API_GROUP,
      names: {
        kind: Kind[input.kind],
        listKind: `${Kind[input.kind]}List`,
        plural,
        singular: Singular[input.kind],
        shortNames: [...ShortNames[input.kind]],
      },
      scope: "Namespaced",
      versions: [version],
    },
  };
}

/** The ApplicationSet CRD: status subresource enabled. */
export function applicationSetCrd(): SchemaNode {
  return buildCrd({
    kind: "ApplicationSet",
    description: "ApplicationSet is a set of Application resources.",
    schema: applicationSetSchema,
    statusSubresource: true,
    printerColumns: [
      { name: "Health", type: "string", jsonPath: ".status.health.status" },
      { name: "Applications", type: "integer", jsonPath: ".status.resourcesCount" },
      { name: "Strategy", type: "string", jsonPath: ".spec.strategy.type", priority: 10 },
      { name: "Age", type: "date", jsonPath: ".metadata.creationTimestamp" },
    ],
  });
}

/** The Application CRD: no status subresource (Argo CD writes status through the main resource). */
export function applicationCrd(): SchemaNode {
  return buildCrd({
    kind: "Application",
    description: "Application is a definition of Application resource.",
    schema: applicationSchema,
    statusSubresource: false,
    printerColumns: [
      { name: "Sync Status", type: "string", jsonPath: ".status.sync.status" },
      { name: "Health Status", type: "string", jsonPath: ".status.health.status" },
      { name: "Revision", type: "string", jsonPath: ".status.sync.revision", priority: 10 },
      { name: "Project", type: "string", jsonPath: ".spec.project", priority: 10 },
    ],
  });
}

/** The AppProject CRD. */
export function appProjectCrd(): SchemaNode {
  return buildCrd({
    kind: "AppProject",
    description: "AppProject provides a logical grouping of applications.",
    schema: appProjectSchema,
    statusSubresource: false,
    printerColumns: [],
  });
}

const HEADER = [
  "# Generated from the zod schemas in src/api (src/api/crd/crds.ts): do not edit by hand.",
  "# After changing a schema, regenerate with: npx vitest run --project unit src/api/crd -u",
].join("\n");

/** Renders a CRD as the YAML committed under deploy/crds. */
export function renderCrdYaml(crd: SchemaNode): string {
  return `${HEADER}\n${stringify(crd, { lineWidth: 0, aliasDuplicateObjects: false })}`;
}

/** Every CRD file of deploy/crds, by file name. */
export const CRD_FILES: Readonly<Record<string, () => SchemaNode>> = {
  "applicationset-crd.yaml": applicationSetCrd,
  "application-crd.yaml": applicationCrd,
  "appproject-crd.yaml": appProjectCrd,
};
