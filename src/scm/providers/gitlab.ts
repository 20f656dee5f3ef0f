/**
 * GitLab (REST v4): group projects, branches and path checks for the SCM Provider generator, merge
 * requests for the Pull Request generator. Authenticated with `PRIVATE-TOKEN`. Pagination follows
 * the `Link` header GitLab sends with every page.
 */
import { arr, at, getJsonOr404, listByLink, memoPath, seg, str, wrap, type ApiTarget } from "../api.js";
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

/** go-gitlab's base URL: `https://gitlab.com` or the configured one, with `/api/v4`. */
export function gitlabBaseUrl(api: string | undefined): string {
  const base = trimTrailingSlashes(api === undefined || api === "" ? "https://gitlab.com" : api);
  return base.endsWith("/api/v4") ? base : `${base}/api/v4`;
}

/** Options of {@link GitlabScm}. */
export interface GitlabScmOptions {
  readonly group: string;
  readonly allBranches: boolean;
  readonly includeSubgroups: boolean;
  readonly includeSharedProjects: boolean;
  readonly includeArchivedRepos: boolean;
  readonly topic: string;
}

/** The SCM provider over GitLab. */
export class GitlabScm implements ScmProviderService {
  private readonly ids = new Map<string, unknown>();

  constructor(
    private readonly t: ApiTarget,
    private readonly o: GitlabScmOptions,
  ) {}

  async listRepos(cloneProtocol: string): Promise<Repository[]> {
    if (!["", "ssh", "https"].includes(cloneProtocol)) throw new Error(`unknown clone protocol for Gitlab ${cloneProtocol}`);
    const q = new URLSearchParams({
      per_page: "100",
      include_subgroups: String(this.o.includeSubgroups),
      with_shared: String(this.o.includeSharedProjects),
    });
    if (this.o.topic !== "") q.set("topic", this.o.topic);
    if (this.o.includeArchivedRepos) q.set("archived", "true");
    let items: unknown[];
    try {
      items = await listByLink(this.t, `groups/${seg(this.o.group)}/projects?${q.toString()}`, "/groups/{group}/projects");
    } catch (err) {
      throw wrap(`error listing projects for ${this.o.group}`, err);
    }
    return items.map((p) => {
      const topics = arr(p, "topics").length > 0 ? arr(p, "topics") : arr(p, "tag_list");
      const repo: Repository = {
        organization: str(p, "namespace", "full_path"),
        repository: str(p, "path"),
        url: cloneProtocol === "https" ? str(p, "http_url_to_repo") : str(p, "ssh_url_to_repo"),
        branch: str(p, "default_branch"),
        sha: "",
        labels: topics.filter((x): x is string => typeof x === "string"),
        repositoryId: at(p, "id") ?? null,
      };
      this.ids.set(`${repo.organization}/${repo.repository}`, at(p, "id"));
      return repo;
    });
  }

  private project(repo: Repository): string {
    const id = this.ids.get(`${repo.organization}/${repo.repository}`) ?? repo.repositoryId;
    return typeof id === "number" || typeof id === "string" ? seg(String(id)) : seg(`${repo.organization}/${repo.repository}`);
  }

  async getBranches(repo: Repository): Promise<Repository[]> {
    const base = `projects/${this.project(repo)}/repository/branches`;
    try {
      if (!this.o.allBranches) {
        const b = await getJsonOr404(this.t, `${base}/${seg(repo.branch)}`, "/projects/{id}/repository/branches/{branch}");
        return b === undefined ? [] : [{ ...repo, branch: str(b, "name"), sha: str(b, "commit", "id") }];
      }
      const all = await listByLink(this.t, `${base}?per_page=100`, "/projects/{id}/repository/branches");
      return all.map((b) => ({ ...repo, branch: str(b, "name"), sha: str(b, "commit", "id") }));
    } catch (err) {
      throw wrap(`error listing branches for ${repo.organization}/${repo.repository}`, err);
    }
  }

  /** Lists the parent directory's tree and looks for the last segment (a file or a directory). */
  async repoHasPath(repo: Repository, path: string): Promise<boolean> {
    return memoPath(this.t, { scope: `gitlab ${this.t.baseUrl} ${credentialIdentity(this.t.headers)}`, repo, path }, async () => {
      const i = path.lastIndexOf("/");
      const [dir, name] = i < 0 ? ["", path] : [path.slice(0, i), path.slice(i + 1)];
      const q = new URLSearchParams({ ref: repo.branch, per_page: "100", ...(dir === "" ? {} : { path: dir }) });
      try {
        const entries = await listByLink(
          this.t,
          `projects/${this.project(repo)}/repository/tree?${q.toString()}`,
          "/projects/{id}/repository/tree",
        );
        return entries.some((e) => str(e, "name") === name);
      } catch (err) {
        if (err instanceof ScmApiError && err.status === 404) return false;
        throw err;
      }
    });
  }
}

/** Options of {@link GitlabPullRequests}. */
export interface GitlabPrOptions {
  readonly project: string;
  /** Sent as the `labels` query: merge requests carrying all of them. */
  readonly labels: readonly string[];
  /** `pullRequestState`; "" lists every state. */
  readonly state: string;
}

/** Merge requests of one GitLab project. */
export class GitlabPullRequests implements PullRequestService {
  constructor(
    private readonly t: ApiTarget,
    private readonly o: GitlabPrOptions,
  ) {}

  async list(): Promise<PullRequest[]> {
    const q = new URLSearchParams({ per_page: "100" });
    if (this.o.labels.length > 0) q.set("labels", this.o.labels.join(","));
    if (this.o.state !== "") q.set("state", this.o.state);
    let items: unknown[];
    try {
      items = await listByLink(this.t, `projects/${seg(this.o.project)}/merge_requests?${q.toString()}`, "/projects/{id}/merge_requests");
    } catch (err) {
      if (err instanceof ScmApiError && err.status === 404) throw new RepositoryNotFoundError(err);
      throw wrap("error listing merge requests for project", err);
    }
    return items.map((m) => ({
      number: Number(at(m, "iid")),
      title: str(m, "title"),
      branch: str(m, "source_branch"),
      targetBranch: str(m, "target_branch"),
      headSha: str(m, "sha"),
      labels: arr(m, "labels").map((l) => (typeof l === "string" ? l : str(l, "name"))),
      author: str(m, "author", "username"),
    }));
  }
}
