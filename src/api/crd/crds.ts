/**
 * The CustomResourceDefinitions, built from the zod schemas of `src/api` so the apiserver and the
 * controller agree on every field: Argo CD's three (ApplicationSet, Application, AppProject), whose
 * names, short names, scope, subresources and printer columns follow Argo CD's CRDs, under
 * `deploy/crds/`; and the two of rollout safety (RolloutPolicy, RolloutRun) under
 * `deploy/rollout-crds/`. The committed YAML is this module's output (checked by `crds.test.ts`).
 */
import { yaml } from "../../yaml.js";
import { z } from "zod";
import { applicationSchema } from "../application.js";
import { applicationSetSchema } from "../applicationset.js";
import { appProjectSchema } from "../appproject.js";
import { API_GROUP, API_VERSION, Kind, Plural, ShortNames, Singular } from "../constants.js";
import { applicationSetTemplateSchema } from "../generators.js";
import { ROLLOUT_GROUP, ROLLOUT_VERSION, RolloutKind, RolloutPlural, RolloutShortNames, RolloutSingular } from "../rollout-constants.js";
import { rolloutPolicySchema } from "../rollout-policy.js";
import { rolloutRunSchema } from "../rollout-run.js";
import { toStructural, type SchemaNode } from "./openapi.js";

/** A printer column of a CRD version. */
export interface PrinterColumn {
  readonly name: string;
  readonly type: "string" | "integer" | "date" | "boolean" | "number";
  readonly jsonPath: string;
  readonly priority?: number;
}

/** The names of one kind: its group, version, kind, plural, singular and short names. */
interface CrdNames {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  readonly plural: string;
  readonly singular: string;
  readonly shortNames: readonly string[];
  /** `app.kubernetes.io/part-of` of the CRD. */
  readonly partOf: string;
}

interface CrdInput {
  readonly names: CrdNames;
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
  const n = input.names;
  const version: SchemaNode = { name: n.version, served: true, storage: true };
  if (input.printerColumns.length > 0) version["additionalPrinterColumns"] = input.printerColumns;
  version["schema"] = { openAPIV3Schema: openApiSchemaOf(input.schema, input.description) };
  if (input.statusSubresource) version["subresources"] = { status: {} };
  return {
    apiVersion: "apiextensions.k8s.io/v1",
    kind: "CustomResourceDefinition",
    metadata: {
      name: `${n.plural}.${n.group}`,
      labels: { "app.kubernetes.io/name": `${n.plural}.${n.group}`, "app.kubernetes.io/part-of": n.partOf },
    },
    spec: {
      group: n.group,
      names: { kind: n.kind, listKind: `${n.kind}List`, plural: n.plural, singular: n.singular, shortNames: [...n.shortNames] },
      scope: "Namespaced",
      versions: [version],
    },
  };
}

/** The names of an Argo CD kind. */
function argoNames(kind: keyof typeof Plural): CrdNames {
  return {
    group: API_GROUP,
    version: API_VERSION,
    kind: Kind[kind],
    plural: Plural[kind],
    singular: Singular[kind],
    shortNames: ShortNames[kind],
    partOf: "argocd",
  };
}

/** The names of a rollout safety kind (our own group). */
function rolloutNames(kind: keyof typeof RolloutPlural): CrdNames {
  return {
    group: ROLLOUT_GROUP,
    version: ROLLOUT_VERSION,
    kind: RolloutKind[kind],
    plural: RolloutPlural[kind],
    singular: RolloutSingular[kind],
    shortNames: RolloutShortNames[kind],
    partOf: "argocd-applicationset-controller",
  };
}

/** The ApplicationSet CRD: status subresource enabled. */
export function applicationSetCrd(): SchemaNode {
  return buildCrd({
    names: argoNames("ApplicationSet"),
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
    names: argoNames("Application"),
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
    names: argoNames("AppProject"),
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
  return `${HEADER}\n${yaml().stringify(crd, { lineWidth: 0, aliasDuplicateObjects: false })}`;
}

/** The RolloutPolicy CRD (docs/adr/0009-rollout-policy-crd.md). */
export function rolloutPolicyCrd(): SchemaNode {
  return buildCrd({
    names: rolloutNames("RolloutPolicy"),
    description:
      "RolloutPolicy holds the rollout safety rules (deadlines, failure budgets, soak, approval, rollback) of the RollingSync ApplicationSets it selects in its namespace.",
    schema: rolloutPolicySchema,
    statusSubresource: true,
    printerColumns: [{ name: "Age", type: "date", jsonPath: ".metadata.creationTimestamp" }],
  });
}

/** The RolloutRun CRD: one rollout of one ApplicationSet. */
export function rolloutRunCrd(): SchemaNode {
  return buildCrd({
    names: rolloutNames("RolloutRun"),
    description:
      "RolloutRun records one rollout of an ApplicationSet (one set of target revisions): its steps, their phases and why they wait, and the control requests people sent.",
    schema: rolloutRunSchema,
    statusSubresource: true,
    printerColumns: [
      { name: "ApplicationSet", type: "string", jsonPath: ".spec.applicationSet" },
      { name: "Phase", type: "string", jsonPath: ".status.phase" },
      { name: "Step", type: "integer", jsonPath: ".status.currentStep" },
      { name: "Reason", type: "string", jsonPath: ".status.haltReason", priority: 10 },
      { name: "Message", type: "string", jsonPath: ".status.message", priority: 10 },
      { name: "Age", type: "date", jsonPath: ".metadata.creationTimestamp" },
    ],
  });
}

/** Every CRD file of deploy/crds (Argo CD's kinds), by file name. */
export const CRD_FILES: Readonly<Record<string, () => SchemaNode>> = {
  "applicationset-crd.yaml": applicationSetCrd,
  "application-crd.yaml": applicationCrd,
  "appproject-crd.yaml": appProjectCrd,
};

/** Every CRD file of deploy/rollout-crds (our own group, installed beside Argo CD too), by file name. */
export const ROLLOUT_CRD_FILES: Readonly<Record<string, () => SchemaNode>> = {
  "rolloutpolicy-crd.yaml": rolloutPolicyCrd,
  "rolloutrun-crd.yaml": rolloutRunCrd,
};
