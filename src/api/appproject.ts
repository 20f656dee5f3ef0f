/**
 * Argo CD `AppProject` (argoproj.io/v1alpha1): the fields Application validation reads (source
 * repositories, destinations, source namespaces, resource allow/deny lists); the rest (roles, sync
 * windows, signature keys...) is typed loosely and kept as-is.
 */
import { z } from "zod";
import { GROUP_VERSION } from "./constants.js";
import { CRD_PRESERVE, objectMetaSchema, typeMetaShape } from "./meta.js";
import { describeObject, parseWith, type ParseResult } from "./parse.js";

/** A `{group, kind}` entry of a resource allow or deny list (`*` globs allowed). */
export const groupKindSchema = z.looseObject({ group: z.string(), kind: z.string() });
export type GroupKind = z.infer<typeof groupKindSchema>;

/** A permitted destination (`server`/`name`/`namespace` are globs; `!` negates). */
export const projectDestinationSchema = z.looseObject({
  server: z.string().optional(),
  name: z.string().optional(),
  namespace: z.string().optional(),
});
export type ProjectDestination = z.infer<typeof projectDestinationSchema>;

/** A sync window (kept for completeness; the controllers only pass it through). */
export const syncWindowSchema = z.looseObject({
  kind: z.string().optional(),
  schedule: z.string().optional(),
  duration: z.string().optional(),
  applications: z.array(z.string()).optional(),
  namespaces: z.array(z.string()).optional(),
  clusters: z.array(z.string()).optional(),
  manualSync: z.boolean().optional(),
  timeZone: z.string().optional(),
  andOperator: z.boolean().optional(),
  description: z.string().optional(),
}).meta(CRD_PRESERVE);
export type SyncWindow = z.infer<typeof syncWindowSchema>;

/** AppProject `spec`. */
export const appProjectSpecSchema = z.looseObject({
  description: z.string().optional(),
  sourceRepos: z.array(z.string()).optional(),
  destinations: z.array(projectDestinationSchema).optional(),
  sourceNamespaces: z.array(z.string()).optional(),
  clusterResourceWhitelist: z.array(groupKindSchema).optional(),
  clusterResourceBlacklist: z.array(groupKindSchema).optional(),
  namespaceResourceWhitelist: z.array(groupKindSchema).optional(),
  namespaceResourceBlacklist: z.array(groupKindSchema).optional(),
  roles: z.array(z.looseObject({ name: z.string() }).meta(CRD_PRESERVE)).optional(),
  syncWindows: z.array(syncWindowSchema).optional(),
  orphanedResources: z.looseObject({ warn: z.boolean().optional() }).meta(CRD_PRESERVE).optional(),
  signatureKeys: z.array(z.looseObject({ keyID: z.string() })).optional(),
  permitOnlyProjectScopedClusters: z.boolean().optional(),
  destinationServiceAccounts: z
    .array(
      z.looseObject({
        server: z.string(),
        namespace: z.string().optional(),
        defaultServiceAccount: z.string(),
      }).meta(CRD_PRESERVE),
    )
    .optional(),
});
export type AppProjectSpec = z.infer<typeof appProjectSpecSchema>;

/** An Argo CD AppProject. */
export const appProjectSchema = z.looseObject({
  ...typeMetaShape(GROUP_VERSION, "AppProject"),
  metadata: objectMetaSchema,
  spec: appProjectSpecSchema,
  status: z.looseObject({}).meta(CRD_PRESERVE).optional(),
});
export type AppProject = z.infer<typeof appProjectSchema>;

/** Parses an AppProject read from the apiserver. Never throws. */
export function parseAppProject(obj: unknown): ParseResult<AppProject> {
  return parseWith(appProjectSchema, obj, describeObject("AppProject", obj));
}
