/**
 * Azure DevOps Services / Server (Git REST API 7.1, Basic auth with a personal access token):
 * team-project repositories, branches and path checks for the SCM Provider generator, active pull
 * requests of a project filtered to one repository for the Pull Request generator.
 */
import { arr, at, getJson, getJsonOr404, memoPath, seg, str, wrap, type ApiTarget } from "../api.js";
import { credentialIdentity } from "../http.js";
import {
  RepositoryNotFoundError,
  ScmApiError,
  type PullRequest,
  type PullRequestService,
  type Repository,
  type ScmProviderService,
} from "../types.js";

const API_VERSION = "api-version=7.1";

function stripHeads(ref: string): string {
  return ref.replace(/^refs\/heads\//, "");
}

/** The SCM provider over Azure DevOps. */
export class AzureDevOpsScm implements ScmProviderService {
  constructor(
    private readonly t: ApiTarget,
    private readonly o: { readonly organization: string; readonly teamProject: string; readonly allBranches: boolean },
  ) {}

  async listRepos(): Promise<Repository[]> {
    let page: unknown;
    try {
      page = await getJson(this.t, `${seg(this.o.teamProject)}/_apis/git/repositories?${API_VERSION}`, "/{project}/_apis/git/repositories");
    } catch (err) {
      throw wrap(`error listing repositories for ${this.o.teamProject}`, err);
    }
    return arr(page, "value").flatMap((r) => {
      const [name, branch, url, id] = [str(r, "name"), str(r, "defaultBranch"), str(r, "remoteUrl"), str(r, "id")];
      if (name === "" || branch === "" || url === "" || id === "") return [];
      return [
        { organization: this.o.organization, repository: name, url, branch: stripHeads(branch), sha: "", labels: [], repositoryId: id },
      ];
    });
  }

  async getBranches(repo: Repository): Promise<Repository[]> {
    const base = `${seg(this.o.teamProject)}/_apis/git/repositories/${seg(String(repo.repositoryId))}/stats/branches`;
    try {
      if (!this.o.allBranches) {
        const b = await getJsonOr404(
          this.t,
          `${base}?name=${seg(repo.branch)}&${API_VERSION}`,
          "/{project}/_apis/git/repositories/{id}/stats/branches",
        );
        return b === undefined ? [] : [{ ...repo, branch: str(b, "name"), sha: str(b, "commit", "commitId") }];
      }
      const all = await getJson(this.t, `${base}?${API_VERSION}`, "/{project}/_apis/git/repositories/{id}/stats/branches");
      return arr(all, "value").map((b) => ({ ...repo, branch: str(b, "name"), sha: str(b, "commit", "commitId") }));
    } catch (err) {
      throw wrap(`failed to get branches for ${repo.repository}`, err);
    }
  }

  async repoHasPath(repo: Repository, path: string): Promise<boolean> {
    return memoPath(this.t, { scope: `azure ${this.t.baseUrl} ${credentialIdentity(this.t.headers)}`, repo, path }, async () => {
      const q = new URLSearchParams({
        path,
        "versionDescriptor.version": repo.branch,
        "versionDescriptor.versionType": "branch",
        "api-version": "7.1",
      });
      const p = `${seg(this.o.teamProject)}/_apis/git/repositories/${seg(String(repo.repositoryId))}/items?${q.toString()}`;
      return (await getJsonOr404(this.t, p, "/{project}/_apis/git/repositories/{id}/items")) !== undefined;
    });
  }
}

/** Active pull requests of one Azure DevOps repository. */
export class AzureDevOpsPullRequests implements PullRequestService {
  constructor(
    private readonly t: ApiTarget,
    private readonly o: { readonly project: string; readonly repo: string; readonly labels: readonly string[] },
  ) {}

  async list(): Promise<PullRequest[]> {
    let page: unknown;
    try {
      page = await getJson(this.t, `${seg(this.o.project)}/_apis/git/pullrequests?${API_VERSION}`, "/{project}/_apis/git/pullrequests");
    } catch (err) {
      if (err instanceof ScmApiError && (err.status === 404 || err.message.includes("The following project does not exist")))
        throw new RepositoryNotFoundError(err);
      throw err;
    }
    return arr(page, "value").flatMap((p) => this.toPullRequest(p));
  }

  private toPullRequest(p: unknown): PullRequest[] {
    if (str(p, "repository", "name") !== this.o.repo) return [];
    const labels = arr(p, "labels").map((l) => str(l, "name"));
    if (!this.o.labels.every((l) => labels.includes(l))) return [];
    const fields = [
      at(p, "pullRequestId"),
      str(p, "title"),
      str(p, "sourceRefName"),
      str(p, "targetRefName"),
      str(p, "lastMergeSourceCommit", "commitId"),
      str(p, "createdBy", "uniqueName"),
    ];
    if (fields.some((f) => f === undefined || f === "")) return [];
    const author = str(p, "createdBy", "uniqueName");
    return [
      {
        number: Number(at(p, "pullRequestId")),
        title: str(p, "title"),
        branch: stripHeads(str(p, "sourceRefName")),
        targetBranch: stripHeads(str(p, "targetRefName")),
        headSha: str(p, "lastMergeSourceCommit", "commitId"),
        labels,
        author: author.split("@")[0] ?? author,
      },
    ];
  }
}
