/**
 * Argo CD `AppProject` (argoproj.io/v1alpha1): the fields Application validation reads (source
 * repositories, destinations, source namespaces, resource allow/deny lists), and the rest (roles,
 * sync windows, signature keys, source integrity...) declared as Argo CD's CRD has them and passed
 * through unread; roles, sync windows and orphaned-resource settings also keep unknown fields.
 */
import { z } from "zod";
import { GROUP_VERSION } from "./constants.js";
import { CRD_PRESERVE, objectMetaSchema, typeMetaShape } from "./meta.js";
import { describeObject, parseWith, type ParseResult } from "./parse.js";

/** A `{group, kind}` entry of a resource allow or deny list (`*` globs allowed). */
export const groupKindSchema = z.looseObject({ group: z.string(), kind: z.string() });
export type GroupKind = z.infer<typeof groupKindSchema>;

/** A cluster-scoped resource allow or deny list entry: `{group, kind}`, optionally one `name`. */
export const clusterResourceRestrictionSchema = groupKindSchema.extend({ name: z.string().optional() });
export type ClusterResourceRestriction = z.infer<typeof clusterResourceRestrictionSchema>;

/** A permitted destination (`server`/`name`/`namespace` are globs; `!` negates). */
export const projectDestinationSchema = z.looseObject({
  server: z.string().optional(),
  name: z.string().optional(),
  namespace: z.string().optional(),
});
export type ProjectDestination = z.infer<typeof projectDestinationSchema>;

/** A sync window (kept for completeness; the controllers only pass it through). */
export const syncWindowSchema = z
  .looseObject({
    kind: z.string().optional(),
    schedule: z.string().optional(),
    duration: z.string().optional(),
    applications: z.array(z.string()).optional(),
    namespaces: z.array(z.string()).optional(),
    clusters: z.array(z.string()).optional(),
    manualSync: z.boolean().optional(),
    timeZone: z.string().optional(),
    andOperator: z.boolean().optional(),
    syncOverrun: z.boolean().optional(),
    description: z.string().optional(),
  })
  .meta(CRD_PRESERVE);
export type SyncWindow = z.infer<typeof syncWindowSchema>;

/** A JWT token issued for a project role (times are Unix seconds). */
export const jwtTokenSchema = z.looseObject({
  iat: z.number().int(),
  exp: z.number().int().optional(),
  id: z.string().optional(),
});
export type JwtToken = z.infer<typeof jwtTokenSchema>;

/** A project role: its policies, the groups bound to it, and the tokens issued for it. */
export const projectRoleSchema = z
  .looseObject({
    name: z.string(),
    description: z.string().optional(),
    policies: z.array(z.string()).optional(),
    groups: z.array(z.string()).optional(),
    jwtTokens: z.array(jwtTokenSchema).optional(),
  })
  .meta(CRD_PRESERVE);
export type ProjectRole = z.infer<typeof projectRoleSchema>;

/** Where orphaned resources are reported, and which ones are ignored. */
export const orphanedResourcesSchema = z
  .looseObject({
    warn: z.boolean().optional(),
    ignore: z.array(z.looseObject({ group: z.string().optional(), kind: z.string().optional(), name: z.string().optional() })).optional(),
  })
  .meta(CRD_PRESERVE);

/** A source integrity policy: which repositories it covers and the GnuPG keys they must be signed with. */
export const sourceIntegrityGitPolicySchema = z.looseObject({
  repos: z.array(z.looseObject({ url: z.string() })),
  gpg: z.looseObject({ mode: z.string(), keys: z.array(z.string()) }),
});

/** `spec.sourceIntegrity`: signature checks of the sources of the project's Applications. */
export const sourceIntegritySchema = z.looseObject({
  git: z.looseObject({ policies: z.array(sourceIntegrityGitPolicySchema) }),
});
export type SourceIntegrity = z.infer<typeof sourceIntegritySchema>;

/** AppProject `spec`. */
export const appProjectSpecSchema = z.looseObject({
  description: z.string().optional(),
  sourceRepos: z.array(z.string()).optional(),
  destinations: z.array(projectDestinationSchema).optional(),
  sourceNamespaces: z.array(z.string()).optional(),
  clusterResourceWhitelist: z.array(clusterResourceRestrictionSchema).optional(),
  clusterResourceBlacklist: z.array(clusterResourceRestrictionSchema).optional(),
  namespaceResourceWhitelist: z.array(groupKindSchema).optional(),
  namespaceResourceBlacklist: z.array(groupKindSchema).optional(),
  roles: z.array(projectRoleSchema).optional(),
  syncWindows: z.array(syncWindowSchema).optional(),
  orphanedResources: orphanedResourcesSchema.optional(),
  signatureKeys: z.array(z.looseObject({ keyID: z.string() })).optional(),
  permitOnlyProjectScopedClusters: z.boolean().optional(),
  sourceIntegrity: sourceIntegritySchema.optional(),
  destinationServiceAccounts: z
    .array(
      z
        .looseObject({
          server: z.string(),
          namespace: z.string().optional(),
          defaultServiceAccount: z.string(),
        })
        .meta(CRD_PRESERVE),
    )
    .optional(),
});
export type AppProjectSpec = z.infer<typeof appProjectSpecSchema>;

/** An Argo CD AppProject. */
export const appProjectSchema = z.looseObject({
  ...typeMetaShape(GROUP_VERSION, "AppProject"),
  metadata: objectMetaSchema,
  spec: appProjectSpecSchema,
  status: z
    .looseObject({ jwtTokensByRole: z.record(z.string(), z.looseObject({ items: z.array(jwtTokenSchema).optional() })).optional() })
    .meta(CRD_PRESERVE)
    .optional(),
});
export type AppProject = z.infer<typeof appProjectSchema>;

/** Parses an AppProject read from the apiserver. Never throws. */
export function parseAppProject(obj: unknown): ParseResult<AppProject> {
  return parseWith(appProjectSchema, obj, describeObject("AppProject", obj));
}
