/**
 * GitHub and GitHub Enterprise (REST v3): organisation repositories, branches and path checks for
 * the SCM Provider generator, open pull requests for the Pull Request generator.
 *
 * Budget: every GET is conditional. Because a repository's `pushed_at` moves on every push, the
 * branch answer of a repository whose listing entry (`pushed_at`, `default_branch`) is unchanged is
 * reused without a call (for at most `branchMemoMs`), and path checks are remembered per commit
 * SHA. An unchanged organisation therefore costs one conditional request per 100 repositories.
 */
import { contentsPathExists, arr, at, getJsonOr404, listByLink, seg, str, wrap, type ApiTarget } from "../api.js";
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

/** The public API root. */
export const GITHUB_API = "https://api.github.com";

/** go-github's WithEnterpriseURLs: the API root of an Enterprise URL (adds `/api/v3` unless present). */
export function githubBaseUrl(api: string | undefined): string {
  if (api === undefined || api === "") return GITHUB_API;
  const u = new URL(api);
  let path = u.pathname.endsWith("/") ? u.pathname : `${u.pathname}/`;
  if (!path.endsWith("/api/v3/") && !u.host.startsWith("api.") && !u.host.includes(".api.")) path += "api/v3/";
  u.pathname = path;
  return trimTrailingSlashes(u.toString());
}

/** Options of {@link GithubScm}. */
export interface GithubScmOptions {
  readonly organization: string;
  readonly allBranches: boolean;
  readonly excludeArchivedRepos: boolean;
  /** How long a branch answer may be reused while the repository's listing entry is unchanged. */
  readonly branchMemoMs: number;
}

interface Branch {
  readonly name: string;
  readonly sha: string;
}

function toBranch(b: unknown): Branch {
  return { name: str(b, "name"), sha: str(b, "commit", "sha") };
}

/** The SCM provider over GitHub. */
export class GithubScm implements ScmProviderService {
  private readonly fingerprints = new Map<string, string>();
  private readonly identity: string;

  constructor(
    private readonly t: ApiTarget,
    private readonly o: GithubScmOptions,
  ) {
    this.identity = `${t.baseUrl} ${credentialIdentity(t.headers)}`;
  }

  async listRepos(cloneProtocol: string): Promise<Repository[]> {
    if (!["", "ssh", "https"].includes(cloneProtocol)) throw new Error(`unknown clone protocol for GitHub ${cloneProtocol}`);
    let items: unknown[];
    try {
      items = await listByLink(this.t, `orgs/${seg(this.o.organization)}/repos?per_page=100`, "/orgs/{org}/repos");
    } catch (err) {
      throw wrap(`error listing repositories for ${this.o.organization}`, err);
    }
    const repos: Repository[] = [];
    for (const r of items) {
      if (this.o.excludeArchivedRepos && at(r, "archived") === true) continue;
      const repo: Repository = {
        organization: str(r, "owner", "login"),
        repository: str(r, "name"),
        branch: str(r, "default_branch"),
        url: cloneProtocol === "https" ? str(r, "clone_url") : str(r, "ssh_url"),
        sha: "",
        labels: arr(r, "topics").filter((x): x is string => typeof x === "string"),
        repositoryId: at(r, "id") ?? null,
      };
      this.fingerprints.set(`${repo.organization}/${repo.repository}`, `${str(r, "pushed_at")} ${repo.branch}`);
      repos.push(repo);
    }
    return repos;
  }

  async getBranches(repo: Repository): Promise<Repository[]> {
    const name = `${repo.organization}/${repo.repository}`;
    const key = `github-branches ${this.identity} ${name} all=${String(this.o.allBranches)}`;
    const fp = this.fingerprints.get(name);
    const now = this.t.http.clock.now();
    let branches = fp === undefined ? undefined : this.t.http.derived.get<Branch[]>(key, fp, now, this.o.branchMemoMs);
    if (branches === undefined) {
      try {
        branches = await this.listBranches(repo);
      } catch (err) {
        throw wrap(`error listing branches for ${name}`, err);
      }
      if (fp !== undefined) this.t.http.derived.set(key, fp, now, branches);
    }
    return branches.map((b) => ({ ...repo, branch: b.name, sha: b.sha }));
  }

  private async listBranches(repo: Repository): Promise<Branch[]> {
    const base = `repos/${seg(repo.organization)}/${seg(repo.repository)}`;
    if (!this.o.allBranches) {
      const b = await getJsonOr404(this.t, `${base}/branches/${seg(repo.branch)}`, "/repos/{owner}/{repo}/branches/{branch}");
      return b === undefined ? [] : [toBranch(b)];
    }
    return (await listByLink(this.t, `${base}/branches?per_page=100`, "/repos/{owner}/{repo}/branches")).map(toBranch);
  }

  async repoHasPath(repo: Repository, path: string): Promise<boolean> {
    return contentsPathExists(this.t, `github ${this.identity}`, repo, path);
  }
}

/** Options of {@link GithubPullRequests}. */
export interface GithubPrOptions {
  readonly owner: string;
  readonly repo: string;
  /** Every one of these labels must be on a pull request. */
  readonly labels: readonly string[];
}

/** Open pull requests of one GitHub repository. */
export class GithubPullRequests implements PullRequestService {
  constructor(
    private readonly t: ApiTarget,
    private readonly o: GithubPrOptions,
  ) {}

  async list(): Promise<PullRequest[]> {
    const path = `repos/${seg(this.o.owner)}/${seg(this.o.repo)}/pulls?per_page=100`;
    let items: unknown[];
    try {
      items = await listByLink(this.t, path, "/repos/{owner}/{repo}/pulls");
    } catch (err) {
      if (err instanceof ScmApiError && err.status === 404) throw new RepositoryNotFoundError(err);
      throw wrap(`error listing pull requests for ${this.o.owner}/${this.o.repo}`, err);
    }
    return items.flatMap((p) => {
      const labels = arr(p, "labels").map((l) => str(l, "name"));
      if (!this.o.labels.every((want) => labels.includes(want))) return [];
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
