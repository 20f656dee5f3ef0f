/**
 * Where an Application's manifests come from (argoproj.io/v1alpha1): a source with its Helm,
 * Kustomize, directory and plugin options, and the source hydrator (its spec and status). Field
 * names are Argo CD's JSON names. Re-exported by `application.ts`.
 */
import { z } from "zod";
import { CRD_PRESERVE, stringMapSchema, timeSchema } from "./meta.js";
// ---------------------------------------------------------------------------------------------
// Sources
// ---------------------------------------------------------------------------------------------

/** Helm options of a source. `valuesObject` is free-form YAML. */
export const helmSourceSchema = z
  .looseObject({
    valueFiles: z.array(z.string()).optional(),
    parameters: z
      .array(z.looseObject({ name: z.string().optional(), value: z.string().optional(), forceString: z.boolean().optional() }))
      .optional(),
    fileParameters: z.array(z.looseObject({ name: z.string().optional(), path: z.string().optional() })).optional(),
    releaseName: z.string().optional(),
    values: z.string().optional(),
    valuesObject: z.looseObject({}).meta(CRD_PRESERVE).optional(),
    namespace: z.string().optional(),
    version: z.string().optional(),
    kubeVersion: z.string().optional(),
    apiVersions: z.array(z.string()).optional(),
    passCredentials: z.boolean().optional(),
    ignoreMissingValueFiles: z.boolean().optional(),
    skipCrds: z.boolean().optional(),
    skipSchemaValidation: z.boolean().optional(),
    skipTests: z.boolean().optional(),
  })
  .meta(CRD_PRESERVE);
export type HelmSource = z.infer<typeof helmSourceSchema>;

/** The objects a Kustomize patch applies to. */
export const kustomizeSelectorSchema = z.looseObject({
  group: z.string().optional(),
  version: z.string().optional(),
  kind: z.string().optional(),
  name: z.string().optional(),
  namespace: z.string().optional(),
  labelSelector: z.string().optional(),
  annotationSelector: z.string().optional(),
});

/** One Kustomize patch: inline (`patch`) or from a file (`path`), with its target and options. */
export const kustomizePatchSchema = z.looseObject({
  path: z.string().optional(),
  patch: z.string().optional(),
  target: kustomizeSelectorSchema.optional(),
  options: z.record(z.string(), z.boolean()).optional(),
});
export type KustomizePatch = z.infer<typeof kustomizePatchSchema>;

/** Kustomize options of a source. */
export const kustomizeSourceSchema = z
  .looseObject({
    namePrefix: z.string().optional(),
    nameSuffix: z.string().optional(),
    namespace: z.string().optional(),
    images: z.array(z.string()).optional(),
    commonLabels: stringMapSchema.optional(),
    commonAnnotations: stringMapSchema.optional(),
    commonAnnotationsEnvsubst: z.boolean().optional(),
    forceCommonLabels: z.boolean().optional(),
    forceCommonAnnotations: z.boolean().optional(),
    labelWithoutSelector: z.boolean().optional(),
    labelIncludeTemplates: z.boolean().optional(),
    version: z.string().optional(),
    kubeVersion: z.string().optional(),
    apiVersions: z.array(z.string()).optional(),
    components: z.array(z.string()).optional(),
    ignoreMissingComponents: z.boolean().optional(),
    patches: z.array(kustomizePatchSchema).optional(),
    replicas: z.array(z.looseObject({ name: z.string(), count: z.union([z.number().int(), z.string()]) })).optional(),
  })
  .meta(CRD_PRESERVE);
export type KustomizeSource = z.infer<typeof kustomizeSourceSchema>;

/** A Jsonnet external variable or top-level argument. */
const jsonnetVarSchema = z.looseObject({ name: z.string(), value: z.string(), code: z.boolean().optional() });

/** Plain-directory options of a source. */
export const directorySourceSchema = z
  .looseObject({
    recurse: z.boolean().optional(),
    include: z.string().optional(),
    exclude: z.string().optional(),
    disableExtensionFilter: z.boolean().optional(),
    jsonnet: z
      .looseObject({
        extVars: z.array(jsonnetVarSchema).optional(),
        tlas: z.array(jsonnetVarSchema).optional(),
        libs: z.array(z.string()).optional(),
      })
      .optional(),
  })
  .meta(CRD_PRESERVE);
export type DirectorySource = z.infer<typeof directorySourceSchema>;

/** Config-management-plugin options of a source. */
export const pluginSourceSchema = z
  .looseObject({
    name: z.string().optional(),
    env: z.array(z.looseObject({ name: z.string(), value: z.string() })).optional(),
    parameters: z
      .array(
        z.looseObject({
          name: z.string().optional(),
          string: z.string().optional(),
          array: z.array(z.string()).optional(),
          map: stringMapSchema.optional(),
        }),
      )
      .optional(),
  })
  .meta(CRD_PRESERVE);
export type PluginSource = z.infer<typeof pluginSourceSchema>;

/** Where an Application's manifests come from. `repoURL` is required, as in Argo CD's CRD. */
export const applicationSourceSchema = z.looseObject({
  repoURL: z.string().describe("URL of the Git repository, Helm chart repository or OCI registry."),
  path: z.string().optional().describe("Directory of the manifests inside the repository."),
  targetRevision: z.string().optional().describe("The branch, tag, commit or chart version (or version constraint) to deploy."),
  chart: z.string().optional().describe("Name of the Helm chart, for a Helm chart repository."),
  ref: z.string().optional().describe("A name other sources use to read this source's files ($name/path), as with Helm value files."),
  name: z.string().optional().describe("A name for this source among the Application's sources."),
  tagPrefix: z
    .string()
    .optional()
    .describe(
      "Only Git tags starting with this prefix are candidates when targetRevision is a version constraint; versions are compared without it.",
    ),
  helm: helmSourceSchema.optional().describe("Helm options."),
  kustomize: kustomizeSourceSchema.optional().describe("Kustomize options."),
  directory: directorySourceSchema.optional().describe("Options of a directory of plain manifests or Jsonnet."),
  plugin: pluginSourceSchema.optional().describe("Config management plugin options."),
});
export type ApplicationSource = z.infer<typeof applicationSourceSchema>;

// ---------------------------------------------------------------------------------------------
// Source hydrator
// ---------------------------------------------------------------------------------------------

/** The "dry" source the hydrator renders: a repository, revision and path, with tool options. */
export const drySourceSchema = z.looseObject({
  repoURL: z.string(),
  targetRevision: z.string(),
  path: z.string(),
  helm: helmSourceSchema.optional(),
  kustomize: kustomizeSourceSchema.optional(),
  directory: directorySourceSchema.optional(),
  plugin: pluginSourceSchema.optional(),
});
export type DrySource = z.infer<typeof drySourceSchema>;

/** Where the hydrated manifests are read from when syncing. */
export const syncSourceSchema = z.looseObject({
  repoURL: z.string().optional(),
  targetBranch: z.string(),
  path: z.string(),
});
export type SyncSource = z.infer<typeof syncSourceSchema>;

/** `spec.sourceHydrator`: render a dry source into a branch, then sync from that branch. */
export const sourceHydratorSchema = z
  .looseObject({
    drySource: drySourceSchema,
    syncSource: syncSourceSchema,
    hydrateTo: z.looseObject({ targetBranch: z.string() }).optional(),
  })
  .meta(CRD_PRESERVE);
export type SourceHydrator = z.infer<typeof sourceHydratorSchema>;

/** The last successful hydration (`status.sourceHydrator.lastSuccessfulOperation`). */
const successfulHydrateOperationSchema = z.looseObject({
  drySHA: z.string().optional(),
  hydratedSHA: z.string().optional(),
  sourceHydrator: sourceHydratorSchema.optional(),
});

/** The running or last hydration (`status.sourceHydrator.currentOperation`). */
const hydrateOperationSchema = successfulHydrateOperationSchema.extend({
  startedAt: timeSchema,
  finishedAt: timeSchema,
  phase: z.string(),
  message: z.string(),
});

/** `status.sourceHydrator`, written by Argo CD's hydrator (passed through here). */
export const sourceHydratorStatusSchema = z
  .looseObject({
    lastComparedDryRevision: z.string().optional(),
    lastSuccessfulOperation: successfulHydrateOperationSchema.optional(),
    currentOperation: hydrateOperationSchema.optional(),
  })
  .meta(CRD_PRESERVE);
export type SourceHydratorStatus = z.infer<typeof sourceHydratorStatusSchema>;
