/**
 * Which ApplicationSets an event can affect. Pure: the ApplicationSet and the event in, the path
 * of the first generator the event can change out (for the log), or undefined.
 *
 * Unlike Argo CD, generators are matched statically at every depth of Matrix and Merge (Argo CD
 * checks only a Matrix's first child, then runs that child's generator inside the webhook worker
 * to interpolate the second). A field rendered from a sibling's parameters (`{{ .url }}`) matches
 * whatever its literal parts allow, so a Matrix whose Git child follows an SCM Provider's
 * repositories is refreshed, and nothing calls a Git host or a plugin while matching. A Plugin
 * generator is refreshed only when its input parameters name the event's repository (Argo CD
 * refreshes every Plugin-based ApplicationSet on every event).
 */
import {
  isRecord,
  terminalGeneratorSchema,
  type ApplicationSet,
  type GitGenerator,
  type OciGenerator,
  type PluginGenerator,
  type PullRequestGenerator,
  type ScmProviderGenerator,
  type TerminalGenerator,
} from "../api/index.js";
import { apiServes, isTemplated, repoURLMatches, sameName, stripRef } from "./repourl.js";
import { meets, parseConstraint, parseVersion } from "../syncwaves/helm-repo/versions.js";
import { normalizeOci } from "./providers/ghcr.js";
import type { EventRepo, ProviderName, PullRequestEvent, PushEvent, PushedRef, RegistryEvent, WebhookEvent } from "./types.js";

const GITHUB_API = "https://api.github.com/";
const GITLAB_API = "https://gitlab.com/";
const BITBUCKET_API = "https://api.bitbucket.org/2.0";

/** A semver constraint (`1.2.x`, `^1.2`, `>=1.0.0 <2.0.0`, `v1.*`) rather than a ref name. */
export function isSemverConstraint(revision: string): boolean {
  return /^[\sv\d.*xX^~<>=|,-]+$/.test(revision) && /[*xX^~<>=|]| - /.test(revision);
}

/**
 * Whether a Git generator's `revision` follows a pushed ref: `HEAD` or empty follows the default
 * branch (when the payload does not name it, any branch may be it); otherwise the names must be
 * equal (with or without `refs/heads/`); a semver constraint follows every pushed version tag
 * (Argo CD never refreshes those, #29826).
 */
export function revisionFollows(revision: string, ref: PushedRef): boolean {
  if (isTemplated(revision)) return true;
  const target = stripRef(revision);
  if (target === "" || target === "HEAD") return ref.touchedHead !== false;
  if (target === ref.revision || revision === ref.revision) return true;
  return ref.tag && isSemverConstraint(revision) && /^v?\d+(\.\d+){0,2}([-+].*)?$/.test(ref.revision);
}

function gitAffected(git: GitGenerator, e: PushEvent): boolean {
  return repoURLMatches(git.repoURL, e.repo.urls) && e.refs.some((r) => revisionFollows(git.revision, r));
}

/** Whether a pushed tag is the revision, or a version the revision's semver constraint admits (Argo CD's `CompareRevisions`). */
export function tagFollows(tag: string, revision: string): boolean {
  if (tag === revision) return true;
  const constraint = parseConstraint(revision);
  const version = parseVersion(tag);
  return constraint !== undefined && version !== undefined && meets(constraint, version);
}

/** OCI generators: a tag pushed to the generator's repository (compared case-insensitively) that its revision follows. */
function ociAffected(oci: OciGenerator, e: RegistryEvent): boolean {
  const repository = isTemplated(oci.repoURL) || normalizeOci(oci.repoURL) === e.repository;
  return repository && (isTemplated(oci.revision) || tagFollows(e.tag, oci.revision));
}

function gitlabGroupHolds(g: NonNullable<ScmProviderGenerator["gitlab"]>, owner: string): boolean {
  if (isTemplated(g.group) || /^\d+$/.test(g.group) || g.includeSharedProjects !== false) return true;
  const group = g.group.toLowerCase();
  const ns = owner.toLowerCase();
  return ns === group || (g.includeSubgroups === true && ns.startsWith(`${group}/`));
}

type Check<G> = (g: G, repo: EventRepo) => boolean;

/** SCM Provider generators: a push to a repository of the organisation (its branches and SHAs). */
const SCM_CHECKS: Readonly<Record<ProviderName, Check<ScmProviderGenerator>>> = {
  github: ({ github: g }, repo) => g !== undefined && sameName(g.organization, repo.owner) && apiServes(g.api || GITHUB_API, repo.hosts),
  gitlab: ({ gitlab: g }, repo) => g !== undefined && gitlabGroupHolds(g, repo.owner) && apiServes(g.api || GITLAB_API, repo.hosts),
  gitea: ({ gitea: g }, repo) => g !== undefined && sameName(g.owner, repo.owner) && apiServes(g.api, repo.hosts),
  bitbucketserver: ({ bitbucketServer: g }, repo) => g !== undefined && sameName(g.project, repo.owner) && apiServes(g.api, repo.hosts),
  bitbucket: ({ bitbucket: g }, repo) => g !== undefined && sameName(g.owner, repo.owner),
  azuredevops: ({ azureDevOps: g }, repo) =>
    g !== undefined && sameName(g.teamProject, repo.owner) && organizationMatches(g.organization, repo),
};

function organizationMatches(organization: string, repo: EventRepo): boolean {
  return repo.organization === undefined || sameName(organization, repo.organization);
}

function ownerAndRepo(p: { owner: string; repo: string }, repo: EventRepo): boolean {
  return sameName(p.owner, repo.owner) && sameName(p.repo, repo.name);
}

function gitlabProjectIs(project: string, repo: EventRepo): boolean {
  return project === repo.projectId || sameName(project, repo.owner === "" ? repo.name : `${repo.owner}/${repo.name}`);
}

/** Pull Request generators: an event of the generator's repository on the generator's host. */
const PULL_REQUEST_CHECKS: Readonly<Record<ProviderName, Check<PullRequestGenerator>>> = {
  github: ({ github: g }, repo) => g !== undefined && ownerAndRepo(g, repo) && apiServes(g.api || GITHUB_API, repo.hosts),
  gitlab: ({ gitlab: g }, repo) => g !== undefined && gitlabProjectIs(g.project, repo) && apiServes(g.api || GITLAB_API, repo.hosts),
  gitea: ({ gitea: g }, repo) => g !== undefined && ownerAndRepo(g, repo) && apiServes(g.api, repo.hosts),
  bitbucketserver: ({ bitbucketServer: g }, repo) =>
    g !== undefined && ownerAndRepo({ owner: g.project, repo: g.repo }, repo) && apiServes(g.api, repo.hosts),
  bitbucket: ({ bitbucket: g }, repo) => g !== undefined && ownerAndRepo(g, repo) && apiServes(g.api || BITBUCKET_API, repo.hosts),
  azuredevops: ({ azuredevops: g }, repo) =>
    g !== undefined && ownerAndRepo({ owner: g.project, repo: g.repo }, repo) && organizationMatches(g.organization, repo),
};

function strings(value: unknown, out: string[] = []): string[] {
  if (typeof value === "string") out.push(value);
  else if (Array.isArray(value)) for (const v of value) strings(v, out);
  else if (isRecord(value)) for (const v of Object.values(value)) strings(v, out);
  return out;
}

/** Plugin generators: only when an input parameter names the repository (URL or `owner/name`). */
function pluginAffected(p: PluginGenerator, repo: EventRepo): boolean {
  const fullName = `${repo.owner}/${repo.name}`.toLowerCase();
  return strings(p.input?.parameters).some((s) => repoURLMatches(s, repo.urls) || s.trim().toLowerCase() === fullName);
}

function terminalAffected(g: TerminalGenerator, e: PushEvent | PullRequestEvent | RegistryEvent): string | undefined {
  if (e.kind === "registry") return g.oci !== undefined && ociAffected(g.oci, e) ? "oci" : undefined;
  return gitHostAffected(g, e);
}

function gitHostAffected(g: TerminalGenerator, e: PushEvent | PullRequestEvent): string | undefined {
  if (e.kind === "push" && g.git !== undefined && gitAffected(g.git, e)) return "git";
  if (e.kind === "push" && g.scmProvider !== undefined && SCM_CHECKS[e.provider](g.scmProvider, e.repo)) return "scmProvider";
  if (e.kind === "pull-request" && g.pullRequest !== undefined && PULL_REQUEST_CHECKS[e.provider](g.pullRequest, e.repo))
    return "pullRequest";
  if (g.plugin !== undefined && pluginAffected(g.plugin, e.repo)) return "plugin";
  return undefined;
}

/** The generators of a Matrix or Merge (typed at the top level, raw JSON below it). */
function childrenOf(raw: unknown): unknown[] {
  return isRecord(raw) && Array.isArray(raw["generators"]) ? raw["generators"] : [];
}

function generatorAffected(raw: unknown, e: PushEvent | PullRequestEvent | RegistryEvent, path: string): string | undefined {
  const parsed = terminalGeneratorSchema.safeParse(raw);
  if (!parsed.success || !isRecord(raw)) return undefined;
  const own = terminalAffected(parsed.data, e);
  if (own !== undefined) return `${path}.${own}`;
  for (const key of ["matrix", "merge"] as const) {
    const children = childrenOf(raw[key]);
    for (let i = 0; i < children.length; i++) {
      const hit = generatorAffected(children[i], e, `${path}.${key}.generators[${String(i)}]`);
      if (hit !== undefined) return hit;
    }
  }
  return undefined;
}

/**
 * The path (`generators[0].matrix.generators[1].git`) of the first generator of `appSet` that the
 * event can change, or undefined when none can.
 */
export function affectedGenerator(appSet: ApplicationSet, event: WebhookEvent): string | undefined {
  if (event.kind === "ignored") return undefined;
  const generators = appSet.spec.generators ?? [];
  for (let i = 0; i < generators.length; i++) {
    const hit = generatorAffected(generators[i], event, `generators[${String(i)}]`);
    if (hit !== undefined) return hit;
  }
  return undefined;
}
