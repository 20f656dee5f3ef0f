/**
 * ApplicationSet generators (docs/generators.md): list, clusters, git, scmProvider (7 providers),
 * clusterDecisionResource, pullRequest (6 providers), matrix, merge, plugin, at the three nesting
 * levels Argo CD allows.
 *
 * As in Argo CD's CRD, a matrix/merge nested inside a matrix/merge is raw JSON: it is decoded when
 * the generator runs, with {@link parseNestedMatrixGenerator} / {@link parseNestedMergeGenerator},
 * so a malformed nested generator fails that generator rather than the whole object.
 */
import { z } from "zod";
import { applicationSpecSchema } from "./application.js";
import { configMapKeyRefSchema, labelSelectorSchema, secretRefSchema, stringMapSchema } from "./meta.js";
import { parseWith, type ParseResult } from "./parse.js";

// ---------------------------------------------------------------------------------------------
// Templates
// ---------------------------------------------------------------------------------------------

/** Template metadata: every string (and map key) is templated; `namespace` is ignored. */
export const templateMetaSchema = z.looseObject({
  name: z.string().optional().describe("Name of the generated Application; must differ between parameter sets."),
  namespace: z.string().optional().describe("Not used: Applications are created in the ApplicationSet's namespace."),
  labels: stringMapSchema.optional().describe("Labels of the generated Application (keys and values are templated)."),
  annotations: stringMapSchema.optional().describe("Annotations of the generated Application (keys and values are templated)."),
  finalizers: z
    .array(z.string())
    .optional()
    .describe("Finalizers of the generated Application, such as resources-finalizer.argocd.argoproj.io to delete its resources with it."),
});
export type TemplateMeta = z.infer<typeof templateMetaSchema>;

/** The ApplicationSet's own template: metadata and a full Application spec. */
export const applicationSetTemplateSchema = z.looseObject({
  metadata: templateMetaSchema.describe("Name, labels, annotations and finalizers of the generated Application."),
  spec: applicationSpecSchema.describe("The spec of the generated Application."),
});
export type ApplicationSetTemplate = z.infer<typeof applicationSetTemplateSchema>;

/**
 * A generator's override template. Argo CD's CRD requires the same keys as the main template, but
 * the values may be empty: they are merged over the main template before rendering
 * (docs/templates.md#rendering-around-the-template).
 */
export const generatorTemplateSchema = z
  .looseObject({
    metadata: templateMetaSchema.optional(),
    spec: applicationSpecSchema.partial().optional(),
  })
  .meta({ "x-crd": "template" })
  .describe("Overrides the ApplicationSet's template for this generator's parameter sets; merged over it before rendering.");
export type GeneratorTemplate = z.infer<typeof generatorTemplateSchema>;

/** Fields every parameter-producing generator shares. */
const commonShape = {
  requeueAfterSeconds: z.number().int().optional(),
  values: stringMapSchema.optional(),
  template: generatorTemplateSchema.optional(),
};

// ---------------------------------------------------------------------------------------------
// list, clusters, git, clusterDecisionResource, plugin
// ---------------------------------------------------------------------------------------------

/** List generator: literal elements (any JSON) and/or a YAML string of elements. */
export const listGeneratorSchema = z.looseObject({
  elements: z.array(z.unknown()).optional(),
  elementsYaml: z.string().optional(),
  template: generatorTemplateSchema.optional(),
});
export type ListGenerator = z.infer<typeof listGeneratorSchema>;

/** Cluster generator: one param set per matching cluster Secret (plus in-cluster). */
export const clusterGeneratorSchema = z.looseObject({
  selector: labelSelectorSchema.optional(),
  values: stringMapSchema.optional(),
  flatList: z.boolean().optional(),
  template: generatorTemplateSchema.optional(),
});
export type ClusterGenerator = z.infer<typeof clusterGeneratorSchema>;

/** A `directories[]` entry of the Git generator. */
export const gitDirectorySchema = z.looseObject({ path: z.string(), exclude: z.boolean().optional() });
/** A `files[]` entry of the Git generator. */
export const gitFileSchema = z.looseObject({ path: z.string(), exclude: z.boolean().optional() });

/** The fields of a generator reading directories or files at a revision (Git, OCI). */
const repositoryTreeShape = {
  repoURL: z.string(),
  revision: z.string(),
  directories: z.array(gitDirectorySchema).optional(),
  files: z.array(gitFileSchema).optional(),
  pathParamPrefix: z.string().optional(),
  ...commonShape,
};

/** Git generator: directories or files of a repository. */
export const gitGeneratorSchema = z.looseObject(repositoryTreeShape);
export type GitGenerator = z.infer<typeof gitGeneratorSchema>;

/** OCI generator: directories or files of an OCI artifact (Argo CD v3.6), as the Git generator reads a repository. */
export const ociGeneratorSchema = z.looseObject(repositoryTreeShape);
export type OciGenerator = z.infer<typeof ociGeneratorSchema>;

/** Cluster Decision Resource (duck type) generator. */
export const clusterDecisionResourceGeneratorSchema = z.looseObject({
  configMapRef: z.string(),
  name: z.string().optional(),
  labelSelector: labelSelectorSchema.optional(),
  ...commonShape,
});
export type ClusterDecisionResourceGenerator = z.infer<typeof clusterDecisionResourceGeneratorSchema>;

/** Plugin generator: parameters from an HTTP plugin. `input.parameters` values are any JSON. */
export const pluginGeneratorSchema = z.looseObject({
  configMapRef: z.looseObject({ name: z.string() }),
  input: z.looseObject({ parameters: z.record(z.string(), z.unknown()).optional() }).optional(),
  ...commonShape,
});
export type PluginGenerator = z.infer<typeof pluginGeneratorSchema>;

// ---------------------------------------------------------------------------------------------
// Shared provider credentials
// ---------------------------------------------------------------------------------------------

/** Basic auth of Bitbucket (Server and Cloud). */
export const basicAuthSchema = z.looseObject({ username: z.string(), passwordRef: secretRefSchema });
/** Bearer token auth of Bitbucket. */
export const bearerTokenSchema = z.looseObject({ tokenRef: secretRefSchema });

// ---------------------------------------------------------------------------------------------
// scmProvider
// ---------------------------------------------------------------------------------------------

/** SCM provider filters: AND within a filter, OR across filters (regexes are RE2). */
export const scmProviderFilterSchema = z.looseObject({
  repositoryMatch: z.string().optional(),
  pathsExist: z.array(z.string()).optional(),
  pathsDoNotExist: z.array(z.string()).optional(),
  labelMatch: z.string().optional(),
  branchMatch: z.string().optional(),
});
export type ScmProviderFilter = z.infer<typeof scmProviderFilterSchema>;

/** The SCM provider configurations, by JSON key. */
export const scmProviders = {
  github: z.looseObject({
    organization: z.string(),
    api: z.string().optional(),
    tokenRef: secretRefSchema.optional(),
    appSecretName: z.string().optional(),
    allBranches: z.boolean().optional(),
    excludeArchivedRepos: z.boolean().optional(),
  }),
  gitlab: z.looseObject({
    group: z.string(),
    api: z.string().optional(),
    tokenRef: secretRefSchema.optional(),
    allBranches: z.boolean().optional(),
    includeSubgroups: z.boolean().optional(),
    includeSharedProjects: z.boolean().optional(),
    includeArchivedRepos: z.boolean().optional(),
    topic: z.string().optional(),
    insecure: z.boolean().optional(),
    caRef: configMapKeyRefSchema.optional(),
  }),
  gitea: z.looseObject({
    owner: z.string(),
    api: z.string(),
    tokenRef: secretRefSchema.optional(),
    allBranches: z.boolean().optional(),
    insecure: z.boolean().optional(),
    excludeArchivedRepos: z.boolean().optional(),
  }),
  bitbucketServer: z.looseObject({
    project: z.string(),
    api: z.string(),
    basicAuth: basicAuthSchema.optional(),
    bearerToken: bearerTokenSchema.optional(),
    allBranches: z.boolean().optional(),
    insecure: z.boolean().optional(),
    caRef: configMapKeyRefSchema.optional(),
  }),
  azureDevOps: z.looseObject({
    organization: z.string(),
    teamProject: z.string(),
    accessTokenRef: secretRefSchema,
    api: z.string().optional(),
    allBranches: z.boolean().optional(),
  }),
  bitbucket: z.looseObject({
    owner: z.string(),
    user: z.string(),
    appPasswordRef: secretRefSchema,
    allBranches: z.boolean().optional(),
  }),
  awsCodeCommit: z.looseObject({
    tagFilters: z.array(z.looseObject({ key: z.string(), value: z.string().optional() })).optional(),
    role: z.string().optional(),
    region: z.string().optional(),
    allBranches: z.boolean().optional(),
  }),
} as const;

/** SCM provider keys in Argo CD's precedence order (the first one set wins). */
export const SCM_PROVIDER_KEYS = ["github", "gitlab", "gitea", "bitbucketServer", "azureDevOps", "bitbucket", "awsCodeCommit"] as const;
export type ScmProviderKey = (typeof SCM_PROVIDER_KEYS)[number];

/** SCM Provider generator: repositories (and branches) of an organisation. */
export const scmProviderGeneratorSchema = z.looseObject({
  github: scmProviders.github.optional(),
  gitlab: scmProviders.gitlab.optional(),
  gitea: scmProviders.gitea.optional(),
  bitbucketServer: scmProviders.bitbucketServer.optional(),
  azureDevOps: scmProviders.azureDevOps.optional(),
  bitbucket: scmProviders.bitbucket.optional(),
  awsCodeCommit: scmProviders.awsCodeCommit.optional(),
  filters: z.array(scmProviderFilterSchema).optional(),
  cloneProtocol: z.string().optional(),
  ...commonShape,
});
export type ScmProviderGenerator = z.infer<typeof scmProviderGeneratorSchema>;

// ---------------------------------------------------------------------------------------------
// pullRequest
// ---------------------------------------------------------------------------------------------

/** Pull request filters: AND within a filter, OR across filters. */
export const pullRequestFilterSchema = z.looseObject({
  branchMatch: z.string().optional(),
  targetBranchMatch: z.string().optional(),
  titleMatch: z.string().optional(),
});
export type PullRequestFilter = z.infer<typeof pullRequestFilterSchema>;

/** The pull request provider configurations, by JSON key (note lowercase `azuredevops`). */
export const pullRequestProviders = {
  github: z.looseObject({
    owner: z.string(),
    repo: z.string(),
    api: z.string().optional(),
    tokenRef: secretRefSchema.optional(),
    appSecretName: z.string().optional(),
    labels: z.array(z.string()).optional(),
  }),
  gitlab: z.looseObject({
    project: z.string(),
    api: z.string().optional(),
    tokenRef: secretRefSchema.optional(),
    labels: z.array(z.string()).optional(),
    pullRequestState: z.string().optional(),
    insecure: z.boolean().optional(),
    caRef: configMapKeyRefSchema.optional(),
  }),
  gitea: z.looseObject({
    owner: z.string(),
    repo: z.string(),
    api: z.string(),
    tokenRef: secretRefSchema.optional(),
    insecure: z.boolean().optional(),
    labels: z.array(z.string()).optional(),
  }),
  bitbucketServer: z.looseObject({
    project: z.string(),
    repo: z.string(),
    api: z.string(),
    basicAuth: basicAuthSchema.optional(),
    bearerToken: bearerTokenSchema.optional(),
    insecure: z.boolean().optional(),
    caRef: configMapKeyRefSchema.optional(),
  }),
  bitbucket: z.looseObject({
    owner: z.string(),
    repo: z.string(),
    api: z.string().optional(),
    basicAuth: basicAuthSchema.optional(),
    bearerToken: bearerTokenSchema.optional(),
  }),
  azuredevops: z.looseObject({
    organization: z.string(),
    project: z.string(),
    repo: z.string(),
    api: z.string().optional(),
    tokenRef: secretRefSchema.optional(),
    labels: z.array(z.string()).optional(),
  }),
} as const;

/** Pull request provider keys in Argo CD's precedence order. */
export const PULL_REQUEST_PROVIDER_KEYS = ["github", "gitlab", "gitea", "bitbucketServer", "bitbucket", "azuredevops"] as const;
export type PullRequestProviderKey = (typeof PULL_REQUEST_PROVIDER_KEYS)[number];

/** Pull Request generator: one param set per open pull request. */
export const pullRequestGeneratorSchema = z.looseObject({
  github: pullRequestProviders.github.optional(),
  gitlab: pullRequestProviders.gitlab.optional(),
  gitea: pullRequestProviders.gitea.optional(),
  bitbucketServer: pullRequestProviders.bitbucketServer.optional(),
  bitbucket: pullRequestProviders.bitbucket.optional(),
  azuredevops: pullRequestProviders.azuredevops.optional(),
  filters: z.array(pullRequestFilterSchema).optional(),
  continueOnRepoNotFoundError: z.boolean().optional(),
  ...commonShape,
});
export type PullRequestGenerator = z.infer<typeof pullRequestGeneratorSchema>;

// ---------------------------------------------------------------------------------------------
// The three nesting levels
// ---------------------------------------------------------------------------------------------

/** The generators that produce parameters themselves (allowed at every level). */
const terminalShape = {
  list: listGeneratorSchema.optional().describe("Parameter sets written out in the ApplicationSet, as elements or as a YAML string."),
  clusters: clusterGeneratorSchema
    .optional()
    .describe("One parameter set per cluster known to Argo CD (its cluster Secrets), optionally filtered by labels."),
  git: gitGeneratorSchema.optional().describe("Parameter sets from the directories or the files of a Git repository."),
  scmProvider: scmProviderGeneratorSchema
    .optional()
    .describe("One parameter set per repository (or branch) of an organisation on a source code hosting service."),
  clusterDecisionResource: clusterDecisionResourceGeneratorSchema
    .optional()
    .describe("One parameter set per cluster listed in the status of a placement-like resource."),
  pullRequest: pullRequestGeneratorSchema.optional().describe("One parameter set per open pull request of a repository."),
  plugin: pluginGeneratorSchema.optional().describe("Parameter sets returned by an HTTP plugin service."),
  oci: ociGeneratorSchema.optional().describe("Parameter sets from the directories or the files of an OCI artifact."),
  selector: labelSelectorSchema.optional().describe("Keeps only the parameter sets of this entry that match these labels."),
};

/** A child of a nested matrix/merge: no further combination generators. */
export const terminalGeneratorSchema = z.looseObject(terminalShape);
export type TerminalGenerator = z.infer<typeof terminalGeneratorSchema>;

/** Raw JSON holding a nested matrix or merge (any JSON in the CRD; decoded at generation time). */
export const rawJsonSchema = z.unknown();

/** A child of a top-level matrix/merge: matrix/merge here are raw JSON. */
export const nestedGeneratorSchema = z.looseObject({
  ...terminalShape,
  matrix: rawJsonSchema.optional(),
  merge: rawJsonSchema.optional(),
});
export type NestedGenerator = z.infer<typeof nestedGeneratorSchema>;

/** Matrix generator: the cartesian product of exactly two children (checked at runtime). */
export const matrixGeneratorSchema = z.looseObject({
  generators: z.array(nestedGeneratorSchema),
  template: generatorTemplateSchema.optional(),
});
export type MatrixGenerator = z.infer<typeof matrixGeneratorSchema>;

/** Merge generator: children merged on `mergeKeys` (two or more children, checked at runtime). */
export const mergeGeneratorSchema = z.looseObject({
  generators: z.array(nestedGeneratorSchema),
  mergeKeys: z.array(z.string()),
  template: generatorTemplateSchema.optional(),
});
export type MergeGenerator = z.infer<typeof mergeGeneratorSchema>;

/** A nested matrix (decoded from raw JSON): terminal children, no template. */
export const nestedMatrixGeneratorSchema = z.looseObject({ generators: z.array(terminalGeneratorSchema) });
export type NestedMatrixGenerator = z.infer<typeof nestedMatrixGeneratorSchema>;

/** A nested merge (decoded from raw JSON): terminal children, no template. */
export const nestedMergeGeneratorSchema = z.looseObject({
  generators: z.array(terminalGeneratorSchema),
  mergeKeys: z.array(z.string()),
});
export type NestedMergeGenerator = z.infer<typeof nestedMergeGeneratorSchema>;

/** A top-level `spec.generators[]` entry. Several keys set means several generators. */
export const applicationSetGeneratorSchema = z.looseObject({
  ...terminalShape,
  matrix: matrixGeneratorSchema.optional().describe("Every combination of the parameter sets of two child generators."),
  merge: mergeGeneratorSchema
    .optional()
    .describe("The parameter sets of the first child generator, updated from the other children's sets with the same mergeKeys values."),
});
export type ApplicationSetGenerator = z.infer<typeof applicationSetGeneratorSchema>;

/** Generator keys of a top-level entry, in Argo CD's evaluation order. */
export const GENERATOR_KINDS = [
  "list",
  "clusters",
  "git",
  "scmProvider",
  "clusterDecisionResource",
  "pullRequest",
  "matrix",
  "merge",
  "plugin",
  "oci",
] as const;
export type GeneratorKind = (typeof GENERATOR_KINDS)[number];

/**
 * Decodes the raw JSON of a matrix nested in a matrix/merge. Children are terminal generators; a
 * third-level matrix/merge is left as an unknown key, which the generator treats as empty.
 */
export function parseNestedMatrixGenerator(raw: unknown): ParseResult<NestedMatrixGenerator> {
  return parseWith(nestedMatrixGeneratorSchema, raw, "nested matrix generator");
}

/** Decodes the raw JSON of a merge nested in a matrix/merge. */
export function parseNestedMergeGenerator(raw: unknown): ParseResult<NestedMergeGenerator> {
  return parseWith(nestedMergeGeneratorSchema, raw, "nested merge generator");
}
