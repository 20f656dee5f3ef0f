/**
 * Bitbucket Cloud (API 2.0): workspace repositories the user is a member of, branches and path
 * checks for the SCM Provider generator, open pull requests (first page, as Argo CD) for the Pull
 * Request generator. Pages are followed through the `next` URL of each page. A repository's
 * `updated_on` moves on every push, so branch answers are reused while it is unchanged, as on
 * GitHub.
 */
import { apiError, arr, at, get, getJson, joinUrl, memoPath, pageWalk, seg, str, wrap, type ApiTarget } from "../api.js";
import { credentialIdentity } from "../http.js";
import {
  RepositoryNotFoundError,
  ScmApiError,
  type PullRequest,
  type PullRequestService,
  type Repository,
  type ScmProviderService,
} from "../types.js";

/** Collects every `values` item of a Bitbucket Cloud listing, following `next` (same origin, within the page limit). */
async function listNext(t: ApiTarget, path: string, endpoint: string): Promise<unknown[]> {
  const out: unknown[] = [];
  const walk = pageWalk(t, path);
  for (let next: string | undefined = joinUrl(t.baseUrl, path); next !== undefined;) {
    walk.count();
    const url: string = next;
    const page = await getJson(t, url, endpoint);
    out.push(...arr(page, "values"));
    const link = str(page, "next");
    next = link === "" ? undefined : walk.next(link, url);
  }
  return out;
}

/** Options of {@link BitbucketCloudScm}. */
export interface BitbucketCloudScmOptions {
  readonly owner: string;
  readonly allBranches: boolean;
  readonly branchMemoMs: number;
}

/** The SCM provider over Bitbucket Cloud. */
export class BitbucketCloudScm implements ScmProviderService {
  private readonly fingerprints = new Map<string, string>();

  constructor(
    private readonly t: ApiTarget,
    private readonly o: BitbucketCloudScmOptions,
  ) {}

  async listRepos(cloneProtocol: string): Promise<Repository[]> {
    const protocol = cloneProtocol === "" ? "ssh" : cloneProtocol;
    let items: unknown[];
    try {
      items = await listNext(this.t, `repositories/${seg(this.o.owner)}?role=member&pagelen=100`, "/repositories/{workspace}");
    } catch (err) {
      throw wrap(`error listing repositories for ${this.o.owner}`, err);
    }
    return items.map((r) => {
      const link = arr(r, "links", "clone").find((l) => str(l, "name") === protocol);
      if (link === undefined) throw new Error(`unknown clone protocol for Bitbucket cloud ${cloneProtocol}`);
      const repo: Repository = {
        organization: this.o.owner,
        repository: str(r, "slug"),
        url: str(link, "href"),
        branch: str(r, "mainbranch", "name"),
        sha: "",
        labels: [],
        repositoryId: at(r, "uuid") ?? null,
      };
      this.fingerprints.set(repo.repository, `${str(r, "updated_on")} ${repo.branch}`);
      return repo;
    });
  }

  async getBranches(repo: Repository): Promise<Repository[]> {
    const key = `bitbucket-branches ${this.t.baseUrl} ${credentialIdentity(this.t.headers)} ${repo.organization}/${repo.repository} all=${String(this.o.allBranches)}`;
    const fp = this.fingerprints.get(repo.repository);
    const now = this.t.http.clock.now();
    let branches =
      fp === undefined ? undefined : this.t.http.derived.get<{ name: string; sha: string }[]>(key, fp, now, this.o.branchMemoMs);
    if (branches === undefined) {
      try {
        const base = `repositories/${seg(repo.organization)}/${seg(repo.repository)}/refs/branches`;
        const raw = this.o.allBranches
          ? await listNext(this.t, `${base}?pagelen=100`, "/repositories/{workspace}/{repo}/refs/branches")
          : [await getJson(this.t, `${base}/${seg(repo.branch)}`, "/repositories/{workspace}/{repo}/refs/branches/{name}")];
        branches = raw.map((b) => ({ name: str(b, "name"), sha: str(b, "target", "hash") }));
      } catch (err) {
        throw wrap(`error getting branches for ${repo.organization}/${repo.repository}`, err);
      }
      if (fp !== undefined) this.t.http.derived.set(key, fp, now, branches);
    }
    return branches.map((b) => ({ ...repo, branch: b.name, sha: b.sha }));
  }

  async repoHasPath(repo: Repository, path: string): Promise<boolean> {
    return memoPath(this.t, { scope: `bitbucket ${this.t.baseUrl} ${credentialIdentity(this.t.headers)}`, repo, path }, async () => {
      const p = `repositories/${seg(repo.organization)}/${seg(repo.repository)}/src/${seg(repo.sha || repo.branch)}/${path.split("/").map(seg).join("/")}?format=meta`;
      const res = await get(this.t, p, "/repositories/{workspace}/{repo}/src/{commit}/{path}");
      if (res.status === 404) return false;
      if (res.status < 200 || res.status > 299) throw apiError("GET", joinUrl(this.t.baseUrl, p), res);
      return true;
    });
  }
}

/** Open pull requests of one Bitbucket Cloud repository (first page, as Argo CD). */
export class BitbucketCloudPullRequests implements PullRequestService {
  constructor(
    private readonly t: ApiTarget,
    private readonly o: { readonly owner: string; readonly repo: string },
  ) {}

  async list(): Promise<PullRequest[]> {
    let page: unknown;
    try {
      page = await getJson(
        this.t,
        `repositories/${seg(this.o.owner)}/${seg(this.o.repo)}/pullrequests`,
        "/repositories/{workspace}/{repo}/pullrequests",
      );
    } catch (err) {
      if (err instanceof ScmApiError && err.status === 404) throw new RepositoryNotFoundError(err);
      throw wrap("error listing pull requests", err);
    }
    return arr(page, "values").map((p) => ({
      number: Number(at(p, "id")),
      title: str(p, "title"),
      branch: str(p, "source", "branch", "name"),
      targetBranch: str(p, "destination", "branch", "name"),
      headSha: str(p, "source", "commit", "hash"),
      labels: [],
      author: str(p, "author", "nickname"),
    }));
  }
}
