/**
 * Bitbucket Server / Data Center (REST 1.0): project repositories, branches and path checks for
 * the SCM Provider generator, pull requests for the Pull Request generator. Pages are followed
 * with `isLastPage` / `nextPageStart` (limit 100). The configured `api` is normalised to end with
 * `/rest`.
 */
import { arr, at, getJson, getJsonOr404, memoPath, pageWalk, seg, str, wrap, type ApiTarget } from "../api.js";
import { credentialIdentity } from "../http.js";
import {
  RepositoryNotFoundError,
  ScmApiError,
  type PullRequest,
  type PullRequestService,
  type Repository,
  type ScmProviderService,
} from "../types.js";
import { trimTrailingSlashes } from "../../trim.js";

/** The REST root of a Bitbucket Server URL (ends with `/rest`). */
export function bitbucketServerBase(api: string): string {
  const base = trimTrailingSlashes(api);
  return base.endsWith("/rest") ? base : `${base}/rest`;
}

/** Collects every `values` item of a paged Bitbucket Server listing. */
export async function listPaged(t: ApiTarget, path: string, endpoint: string): Promise<unknown[]> {
  const out: unknown[] = [];
  const sep = path.includes("?") ? "&" : "?";
  const walk = pageWalk(t, path);
  for (let start = 0; ;) {
    walk.count();
    const page = await getJson(t, `${path}${sep}limit=100&start=${String(start)}`, endpoint);
    out.push(...arr(page, "values"));
    const next = at(page, "nextPageStart");
    if (at(page, "isLastPage") !== false || typeof next !== "number") return out;
    start = next;
  }
}

function cloneLink(r: unknown, name: string): string {
  return str(
    arr(r, "links", "clone").find((l) => str(l, "name") === name),
    "href",
  );
}

/** The SCM provider over Bitbucket Server. */
export class BitbucketServerScm implements ScmProviderService {
  private readonly slugs = new Map<string, string>();

  constructor(
    private readonly t: ApiTarget,
    private readonly o: { readonly project: string; readonly allBranches: boolean },
  ) {}

  async listRepos(cloneProtocol: string): Promise<Repository[]> {
    if (!["", "ssh", "https"].includes(cloneProtocol)) throw new Error(`unknown clone protocol for Bitbucket Server ${cloneProtocol}`);
    let items: unknown[];
    try {
      items = await listPaged(this.t, `api/1.0/projects/${seg(this.o.project)}/repos`, "/api/1.0/projects/{project}/repos");
    } catch (err) {
      throw wrap(`error listing repositories for ${this.o.project}`, err);
    }
    return items.map((r) => {
      const repo: Repository = {
        organization: str(r, "project", "key"),
        repository: str(r, "name"),
        url: cloneLink(r, cloneProtocol === "https" ? "http" : "ssh"),
        branch: "",
        sha: "",
        labels: [],
        repositoryId: at(r, "id") ?? null,
      };
      this.slugs.set(`${repo.organization}/${repo.repository}`, str(r, "slug"));
      return repo;
    });
  }

  private base(repo: Repository): string {
    const slug = this.slugs.get(`${repo.organization}/${repo.repository}`) ?? repo.repository;
    return `api/1.0/projects/${seg(repo.organization)}/repos/${seg(slug)}`;
  }

  async getBranches(repo: Repository): Promise<Repository[]> {
    try {
      if (!this.o.allBranches) {
        const b = await getJsonOr404(
          this.t,
          `${this.base(repo)}/branches/default`,
          "/api/1.0/projects/{project}/repos/{repo}/branches/default",
        );
        return b === undefined || str(b, "displayId") === "" ? [] : [{ ...repo, branch: str(b, "displayId"), sha: str(b, "latestCommit") }];
      }
      const all = await listPaged(this.t, `${this.base(repo)}/branches`, "/api/1.0/projects/{project}/repos/{repo}/branches");
      return all.map((b) => ({ ...repo, branch: str(b, "displayId"), sha: str(b, "latestCommit") }));
    } catch (err) {
      throw wrap(`error listing branches for ${repo.organization}/${repo.repository}`, err);
    }
  }

  async repoHasPath(repo: Repository, path: string): Promise<boolean> {
    return memoPath(this.t, { scope: `bbs ${this.t.baseUrl} ${credentialIdentity(this.t.headers)}`, repo, path }, async () => {
      const p = `${this.base(repo)}/browse/${path.split("/").map(seg).join("/")}?at=${seg(repo.branch)}&type=true&limit=1`;
      return (await getJsonOr404(this.t, p, "/api/1.0/projects/{project}/repos/{repo}/browse/{path}")) !== undefined;
    });
  }
}

/** Pull requests of one Bitbucket Server repository (the API's default: open). */
export class BitbucketServerPullRequests implements PullRequestService {
  constructor(
    private readonly t: ApiTarget,
    private readonly o: { readonly project: string; readonly repo: string },
  ) {}

  async list(): Promise<PullRequest[]> {
    let items: unknown[];
    try {
      items = await listPaged(
        this.t,
        `api/1.0/projects/${seg(this.o.project)}/repos/${seg(this.o.repo)}/pull-requests`,
        "/api/1.0/projects/{project}/repos/{repo}/pull-requests",
      );
    } catch (err) {
      if (err instanceof ScmApiError && err.status === 404) throw new RepositoryNotFoundError(err);
      throw wrap("error listing pull requests", err);
    }
    return items.map((p) => ({
      number: Number(at(p, "id")),
      title: str(p, "title"),
      branch: str(p, "fromRef", "displayId"),
      targetBranch: str(p, "toRef", "displayId"),
      headSha: str(p, "fromRef", "latestCommit"),
      labels: [],
      author: str(p, "author", "user", "name"),
    }));
  }
}
