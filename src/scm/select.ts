/**
 * Turns a generator spec into a provider service, as Argo CD's selectServiceProvider does: provider
 * precedence, credentials from the ApplicationSet namespace (GitHub App Secrets from the Argo CD
 * namespace), TLS settings, and Argo CD's error texts for each step.
 */
import type { ApplicationSet, PullRequestGenerator, PullRequestProviderKey, ScmProviderGenerator, SecretRef } from "../api/index.js";
import { PULL_REQUEST_PROVIDER_KEYS, SCM_PROVIDER_KEYS, secretValue } from "../api/index.js";
import { sharedCredentialsAllowed } from "../generators/shared-credentials.js";
import type { GeneratorContext } from "../generators/types.js";
import { basicAuth, type ApiTarget } from "./api.js";
import { caRefValue, prefixed, secretRefValue, type CredentialSource } from "./credentials.js";
import type { TlsOptions } from "./transport.js";
import { AwsCodeCommitScm } from "./providers/aws-codecommit.js";
import { AzureDevOpsPullRequests, AzureDevOpsScm } from "./providers/azure-devops.js";
import { BitbucketCloudPullRequests, BitbucketCloudScm } from "./providers/bitbucket-cloud.js";
import { BitbucketServerPullRequests, BitbucketServerScm, bitbucketServerBase } from "./providers/bitbucket-server.js";
import { GiteaPullRequests, GiteaScm } from "./providers/gitea.js";
import { GithubAppKey, githubAppToken, type GithubAppCredentials } from "./providers/github-app.js";
import { GithubPullRequests, GithubScm, githubBaseUrl } from "./providers/github.js";
import { GitlabPullRequests, GitlabScm, gitlabBaseUrl } from "./providers/gitlab.js";
import type { ScmServices } from "./services.js";
import type { PullRequestService, ScmProviderService } from "./types.js";
import { trimTrailingSlashes } from "../trim.js";

/** What selecting a provider needs. */
export interface Selection {
  readonly services: ScmServices;
  readonly appSet: ApplicationSet;
  readonly ctx: GeneratorContext;
}

function credentials(sel: Selection): CredentialSource {
  return {
    objects: sel.services.objects,
    namespace: sel.appSet.metadata.namespace ?? "",
    strict: sel.services.settings.tokenRefStrictMode,
    ...(sel.ctx.signal === undefined ? {} : { signal: sel.ctx.signal }),
  };
}

function target(sel: Selection, o: { provider: string; baseUrl: string; headers?: Record<string, string>; tls?: TlsOptions }): ApiTarget {
  return {
    http: sel.services.http(sel.ctx.clock),
    provider: o.provider,
    baseUrl: trimTrailingSlashes(o.baseUrl),
    headers: o.headers ?? {},
    ...(o.tls === undefined ? {} : { tls: o.tls }),
    caller: callerOf(sel),
    ...(sel.ctx.signal === undefined ? {} : { signal: sel.ctx.signal }),
  };
}

/**
 * A token from a Secret reference, falling back to the provider's environment token for an
 * ApplicationSet that may use the control plane's shared credentials (`shared-credentials.ts`).
 */
async function token(sel: Selection, ref: SecretRef | undefined, env: "github" | "gitlab" | "gitea" | undefined): Promise<string> {
  const v = await secretRefValue(credentials(sel), ref);
  if (v !== "" || env === undefined) return v;
  const fallback = sel.services.settings.envTokens[env] ?? "";
  if (fallback === "" || (await sharedCredentialsAllowed(sel.appSet, sel.ctx))) return fallback;
  sel.ctx.logger?.debug(
    { provider: env },
    "not using the environment's SCM token: the ApplicationSet's project does not take its namespace",
  );
  return "";
}

async function tlsFor(
  sel: Selection,
  o: { insecure?: boolean | undefined; caRef?: Parameters<typeof caRefValue>[1] },
): Promise<TlsOptions> {
  const ca = await prefixed("error fetching CA certificates from ConfigMap", () => caRefValue(credentials(sel), o.caRef));
  return { ...(ca === undefined ? {} : { extraCa: [ca] }), ...(o.insecure === true ? { insecure: true } : {}) };
}

/** The GitHub App credentials of a repo-creds Secret of the Argo CD namespace. */
async function githubApp(sel: Selection, name: string): Promise<GithubAppCredentials> {
  const secret = await sel.ctx.ports.secrets?.getSecret(name, sel.ctx.signal);
  const key = secret === undefined ? undefined : secretValue(secret, GithubAppKey.PrivateKey);
  if (secret === undefined || key === undefined || key === "") throw new Error(`no github app found for ${name}`);
  const installationId = secretValue(secret, GithubAppKey.InstallationId) ?? "";
  const enterprise = secretValue(secret, GithubAppKey.EnterpriseBaseUrl) ?? "";
  return {
    appId: secretValue(secret, GithubAppKey.AppId) ?? "",
    privateKey: key,
    ...(installationId === "" ? {} : { installationId }),
    ...(enterprise === "" ? {} : { enterpriseBaseUrl: enterprise }),
  };
}

/** Authorization headers of a GitHub provider (App installation token or a token). */
async function githubTarget(
  sel: Selection,
  o: { api: string | undefined; appSecretName: string | undefined; tokenRef: SecretRef | undefined; org: string; errs: [string, string] },
): Promise<ApiTarget> {
  if (o.appSecretName !== undefined && o.appSecretName !== "") {
    const name = o.appSecretName;
    const app = await prefixed(o.errs[0], () => githubApp(sel, name));
    const base = githubBaseUrl(o.api === undefined || o.api === "" ? app.enterpriseBaseUrl : o.api);
    const tok = await githubAppToken(target(sel, { provider: "github", baseUrl: base }), app, o.org);
    return target(sel, { provider: "github", baseUrl: base, headers: { Authorization: `Bearer ${tok}` } });
  }
  const tok = await prefixed(o.errs[1], () => token(sel, o.tokenRef, "github"));
  return target(sel, { provider: "github", baseUrl: githubBaseUrl(o.api), headers: tok === "" ? {} : { Authorization: `Bearer ${tok}` } });
}

/** Bitbucket auth: bearer token before basic auth before none. */
async function bitbucketHeaders(
  sel: Selection,
  o: { bearerToken?: { tokenRef: SecretRef } | undefined; basicAuth?: { username: string; passwordRef: SecretRef } | undefined },
): Promise<Record<string, string>> {
  if (o.bearerToken !== undefined) {
    const ref = o.bearerToken.tokenRef;
    return { Authorization: `Bearer ${await prefixed("error fetching Secret Bearer token", () => token(sel, ref, undefined))}` };
  }
  if (o.basicAuth !== undefined) {
    const b = o.basicAuth;
    return {
      Authorization: basicAuth(b.username, await prefixed("error fetching Secret token", () => token(sel, b.passwordRef, undefined))),
    };
  }
  return {};
}

type Scm = Required<
  Pick<ScmProviderGenerator, "github" | "gitlab" | "gitea" | "bitbucketServer" | "azureDevOps" | "bitbucket" | "awsCodeCommit">
>;
type ScmBuilders = { readonly [K in keyof Scm]: (cfg: NonNullable<Scm[K]>, sel: Selection) => Promise<ScmProviderService> };

/** One builder per SCM provider key. */
const SCM_BUILDERS: ScmBuilders = {
  github: async (g, sel) => {
    const t = await prefixed("scm provider", () =>
      githubTarget(sel, {
        api: g.api,
        appSecretName: g.appSecretName,
        tokenRef: g.tokenRef,
        org: g.organization,
        errs: ["error fetching Github app secret", "error fetching Github token"],
      }),
    );
    return new GithubScm(t, {
      organization: g.organization,
      allBranches: g.allBranches === true,
      excludeArchivedRepos: g.excludeArchivedRepos === true,
      branchMemoMs: sel.services.settings.branchMemoMs,
    });
  },
  gitlab: async (g, sel) => {
    const tls = await tlsFor(sel, g);
    const tok = await prefixed("error fetching Gitlab token", () => token(sel, g.tokenRef, "gitlab"));
    const t = target(sel, { provider: "gitlab", baseUrl: gitlabBaseUrl(g.api), headers: tok === "" ? {} : { "PRIVATE-TOKEN": tok }, tls });
    return new GitlabScm(t, {
      group: g.group,
      allBranches: g.allBranches === true,
      includeSubgroups: g.includeSubgroups === true,
      includeSharedProjects: g.includeSharedProjects ?? true,
      includeArchivedRepos: g.includeArchivedRepos === true,
      topic: g.topic ?? "",
    });
  },
  gitea: async (g, sel) => {
    const tok = await prefixed("error fetching Gitea token", () => token(sel, g.tokenRef, "gitea"));
    const t = target(sel, {
      provider: "gitea",
      baseUrl: `${trimTrailingSlashes(g.api)}/api/v1`,
      headers: tok === "" ? {} : { Authorization: `token ${tok}` },
      tls: g.insecure === true ? { insecure: true } : {},
    });
    return new GiteaScm(t, { owner: g.owner, allBranches: g.allBranches === true, excludeArchivedRepos: g.excludeArchivedRepos === true });
  },
  bitbucketServer: async (b, sel) => {
    const tls = await tlsFor(sel, b);
    const headers = await bitbucketHeaders(sel, b);
    return new BitbucketServerScm(target(sel, { provider: "bitbucketServer", baseUrl: bitbucketServerBase(b.api), headers, tls }), {
      project: b.project,
      allBranches: b.allBranches === true,
    });
  },
  azureDevOps: async (a, sel) => {
    const tok = await prefixed("error fetching Azure Devops access token", () => token(sel, a.accessTokenRef, undefined));
    if (tok === "") throw new Error("error initializing Azure Devops service: no access token provided");
    const t = target(sel, {
      provider: "azureDevOps",
      baseUrl: azureBase(a.api, a.organization),
      headers: { Authorization: basicAuth("", tok) },
    });
    return new AzureDevOpsScm(t, { organization: a.organization, teamProject: a.teamProject, allBranches: a.allBranches === true });
  },
  bitbucket: async (b, sel) => {
    const pw = await prefixed("error fetching Bitbucket cloud appPassword", () => token(sel, b.appPasswordRef, undefined));
    const t = target(sel, {
      provider: "bitbucket",
      baseUrl: sel.services.settings.bitbucketCloudApi,
      headers: { Authorization: basicAuth(b.user, pw) },
    });
    return new BitbucketCloudScm(t, {
      owner: b.owner,
      allBranches: b.allBranches === true,
      branchMemoMs: sel.services.settings.branchMemoMs,
    });
  },
  awsCodeCommit: (a, sel) => {
    const aws = sel.services.settings.aws;
    const region = a.region !== undefined && a.region !== "" ? a.region : (aws.region ?? "");
    if (region === "")
      return Promise.reject(
        new Error("error initializing AWS codecommit service: no AWS region: set region in the generator or AWS_REGION"),
      );
    const t = {
      http: sel.services.http(sel.ctx.clock),
      region,
      settings: aws,
      caller: callerOf(sel),
      ...(sel.ctx.signal === undefined ? {} : { signal: sel.ctx.signal }),
    };
    return Promise.resolve(
      new AwsCodeCommitScm(t, { tagFilters: a.tagFilters ?? [], allBranches: a.allBranches === true, role: a.role ?? "" }),
    );
  },
};

function callerOf(sel: Selection): { namespace: string; name: string } {
  return { namespace: sel.appSet.metadata.namespace ?? "", name: sel.appSet.metadata.name ?? "" };
}

function azureBase(api: string | undefined, organization: string): string {
  return `${trimTrailingSlashes(api === undefined || api === "" ? "https://dev.azure.com" : api)}/${encodeURIComponent(organization)}`;
}

/** The SCM provider service of a spec (precedence: github > gitlab > gitea > bitbucketServer > azureDevOps > bitbucket > awsCodeCommit). */
export function selectScmProvider(spec: ScmProviderGenerator, sel: Selection): Promise<ScmProviderService> {
  for (const key of SCM_PROVIDER_KEYS) {
    const cfg = spec[key];
    if (cfg !== undefined) return (SCM_BUILDERS[key] as (c: typeof cfg, s: Selection) => Promise<ScmProviderService>)(cfg, sel);
  }
  return Promise.reject(new Error("no SCM provider implementation configured"));
}

/** The custom API URL the allow-list is checked against. */
export function scmCustomApiUrl(spec: ScmProviderGenerator): string | undefined {
  return spec.github?.api ?? spec.gitlab?.api ?? spec.gitea?.api ?? spec.bitbucketServer?.api ?? spec.azureDevOps?.api;
}

/** The custom API URL of a Pull Request generator (Bitbucket Cloud included). */
export function pullRequestCustomApiUrl(spec: PullRequestGenerator): string | undefined {
  return (
    spec.github?.api ?? spec.gitlab?.api ?? spec.gitea?.api ?? spec.bitbucketServer?.api ?? spec.bitbucket?.api ?? spec.azuredevops?.api
  );
}

type Pr = Required<Pick<PullRequestGenerator, PullRequestProviderKey>>;
type PrBuilders = { readonly [K in keyof Pr]: (cfg: NonNullable<Pr[K]>, sel: Selection) => Promise<PullRequestService> };

/** One builder per pull request provider key. */
const PR_BUILDERS: PrBuilders = {
  github: async (g, sel) => {
    const t = await githubTarget(sel, {
      api: g.api,
      appSecretName: g.appSecretName,
      tokenRef: g.tokenRef,
      org: g.owner,
      errs: ["error getting GitHub App secret", "error fetching Secret token"],
    });
    return new GithubPullRequests(t, { owner: g.owner, repo: g.repo, labels: g.labels ?? [] });
  },
  gitlab: async (g, sel) => {
    const tls = await tlsFor(sel, g);
    const tok = await prefixed("error fetching Secret token", () => token(sel, g.tokenRef, "gitlab"));
    const t = target(sel, { provider: "gitlab", baseUrl: gitlabBaseUrl(g.api), headers: tok === "" ? {} : { "PRIVATE-TOKEN": tok }, tls });
    return new GitlabPullRequests(t, { project: g.project, labels: g.labels ?? [], state: g.pullRequestState ?? "" });
  },
  gitea: async (g, sel) => {
    const tok = await prefixed("error fetching Secret token", () => token(sel, g.tokenRef, "gitea"));
    const t = target(sel, {
      provider: "gitea",
      baseUrl: `${trimTrailingSlashes(g.api)}/api/v1`,
      headers: tok === "" ? {} : { Authorization: `token ${tok}` },
      tls: g.insecure === true ? { insecure: true } : {},
    });
    return new GiteaPullRequests(t, { owner: g.owner, repo: g.repo, labels: g.labels ?? [] });
  },
  bitbucketServer: async (b, sel) => {
    const tls = await tlsFor(sel, b);
    const headers = await bitbucketHeaders(sel, b);
    return new BitbucketServerPullRequests(
      target(sel, { provider: "bitbucketServer", baseUrl: bitbucketServerBase(b.api), headers, tls }),
      { project: b.project, repo: b.repo },
    );
  },
  bitbucket: async (b, sel) => {
    const headers = await bitbucketHeaders(sel, b);
    const base = b.api === undefined || b.api === "" ? sel.services.settings.bitbucketCloudApi : b.api;
    return new BitbucketCloudPullRequests(target(sel, { provider: "bitbucket", baseUrl: base, headers }), { owner: b.owner, repo: b.repo });
  },
  azuredevops: async (a, sel) => {
    const tok = await prefixed("error fetching Secret token", () => token(sel, a.tokenRef, undefined));
    const t = target(sel, {
      provider: "azureDevOps",
      baseUrl: azureBase(a.api, a.organization),
      headers: tok === "" ? {} : { Authorization: basicAuth("", tok) },
    });
    return new AzureDevOpsPullRequests(t, { project: a.project, repo: a.repo, labels: a.labels ?? [] });
  },
};

/** The pull request service of a spec (precedence: github > gitlab > gitea > bitbucketServer > bitbucket > azuredevops). */
export function selectPullRequestService(spec: PullRequestGenerator, sel: Selection): Promise<PullRequestService> {
  for (const key of PULL_REQUEST_PROVIDER_KEYS) {
    const cfg = spec[key];
    if (cfg !== undefined) return (PR_BUILDERS[key] as (c: typeof cfg, s: Selection) => Promise<PullRequestService>)(cfg, sel);
  }
  return Promise.reject(new Error("no Pull Request provider implementation configured"));
}
