/**
 * Gitea (REST v1, `Authorization: token …`): organisation repositories (with their issue labels,
 * one call per repository), branches and path checks for the SCM Provider generator, open pull
 * requests (first page, as Argo CD) for the Pull Request generator. Repository listings follow the
 * `Link` header rather than stopping at the first page.
 */
import { contentsPathExists, arr, at, getJson, getJsonOr404, listByLink, seg, str, wrap, type ApiTarget } from "../api.js";
import { credentialIdentity } from "../http.js";
import {
  RepositoryNotFoundError,
  ScmApiError,
  type PullRequest,
  type PullRequestService,
  type Repository,
  type ScmProviderService,
} from "../types.js";

/** Options of {@link GiteaScm}. */
export interface GiteaScmOptions {
  readonly owner: string;
  readonly allBranches: boolean;
  readonly excludeArchivedRepos: boolean;
}

function names(items: unknown[]): string[] {
  return items.map((l) => str(l, "name"));
}

/** The SCM provider over Gitea. */
export class GiteaScm implements ScmProviderService {
  constructor(
    private readonly t: ApiTarget,
    private readonly o: GiteaScmOptions,
  ) {}

  async listRepos(cloneProtocol: string): Promise<Repository[]> {
    let items: unknown[];
    try {
      items = await listByLink(this.t, `orgs/${seg(this.o.owner)}/repos?limit=50`, "/orgs/{org}/repos");
    } catch (err) {
      throw wrap(`error listing repositories for ${this.o.owner}`, err);
    }
    const repos: Repository[] = [];
    for (const r of items) {
      if (this.o.excludeArchivedRepos && at(r, "archived") === true) continue;
      let url: string;
      if (cloneProtocol === "" || cloneProtocol === "ssh") url = str(r, "ssh_url");
      else if (cloneProtocol === "https") url = str(r, "html_url");
      else throw new Error(`unknown clone protocol for GitHub ${cloneProtocol}`);
      const name = str(r, "name");
      const labels = await listByLink(this.t, `repos/${seg(this.o.owner)}/${seg(name)}/labels?limit=50`, "/repos/{owner}/{repo}/labels");
      repos.push({
        organization: this.o.owner,
        repository: name,
        url,
        branch: str(r, "default_branch"),
        sha: "",
        labels: names(labels),
        repositoryId: at(r, "id") ?? null,
      });
    }
    return repos;
  }

  async getBranches(repo: Repository): Promise<Repository[]> {
    const base = `repos/${seg(repo.organization)}/${seg(repo.repository)}/branches`;
    if (!this.o.allBranches) {
      const b = await getJsonOr404(this.t, `${base}/${seg(repo.branch)}`, "/repos/{owner}/{repo}/branches/{branch}");
      if (b === undefined) {
        throw new Error(
          `got 404 while getting default branch ${JSON.stringify(repo.branch)} for repo ${JSON.stringify(repo.repository)} - check your repo config: 404 Not Found`,
        );
      }
      return [{ ...repo, sha: str(b, "commit", "id") }];
    }
    const all = await listByLink(this.t, `${base}?limit=50`, "/repos/{owner}/{repo}/branches");
    return all.map((b) => ({ ...repo, branch: str(b, "name"), sha: str(b, "commit", "id") }));
  }

  async repoHasPath(repo: Repository, path: string): Promise<boolean> {
    return contentsPathExists(this.t, `gitea ${this.t.baseUrl} ${credentialIdentity(this.t.headers)}`, repo, path);
  }
}

/** Options of {@link GiteaPullRequests}. */
export interface GiteaPrOptions {
  readonly owner: string;
  readonly repo: string;
  readonly labels: readonly string[];
}

/** Open pull requests of one Gitea repository (first page only, as Argo CD). */
export class GiteaPullRequests implements PullRequestService {
  constructor(
    private readonly t: ApiTarget,
    private readonly o: GiteaPrOptions,
  ) {}

  async list(): Promise<PullRequest[]> {
    let items: unknown;
    try {
      items = await getJson(this.t, `repos/${seg(this.o.owner)}/${seg(this.o.repo)}/pulls?state=open`, "/repos/{owner}/{repo}/pulls");
    } catch (err) {
      if (err instanceof ScmApiError && err.status === 404) throw new RepositoryNotFoundError(err);
      throw err;
    }
    return (Array.isArray(items) ? items : []).flatMap((p) => {
      const labels = names(arr(p, "labels"));
      if (!this.o.labels.every((l) => labels.includes(l))) return [];
      return [
        {
          number: Number(at(p, "number")),
          title: str(p, "title"),
          branch: str(p, "head", "ref"),
          targetBranch: str(p, "base", "ref"),
          headSha: str(p, "head", "sha"),
          labels,
          author: str(p, "user", "login"),
        },
      ];
    });
  }
}
