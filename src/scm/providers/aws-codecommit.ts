/**
 * AWS CodeCommit for the SCM Provider generator, as Argo CD's provider behaves: repositories from
 * CodeCommit ListRepositories, or from the Resource Groups Tagging API's GetResources when tag
 * filters are set (filters grouped by key: values of one key OR'd, a key without values means
 * "has the tag"); organisation = account id; no labels; no SHA (Argo CD skips the per-branch call);
 * repositories without a default branch are skipped; `allBranches` lists branches; path checks use
 * GetFolder on the parent folder. The controller's credentials come from the AWS SDK's default
 * chain; with `role`, calls are made with STS AssumeRole credentials obtained with them.
 *
 * Budget: repository metadata is read with BatchGetRepositories (100 names a call) rather than one
 * GetRepository per repository, and the default branch comes from that same answer, so an unchanged
 * 100-repository account costs two calls (Argo CD: 201).
 */
import { awsJson, AwsApiError, type AwsCredentials, type AwsTarget } from "../aws/client.js";
import { assumeRoleCached, baseCredentials } from "../aws/credentials.js";
import { arr, str, wrap } from "../api.js";
import type { Repository, ScmProviderService } from "../types.js";

const CODECOMMIT = "CodeCommit_20150413";
const TAGGING = "ResourceGroupsTaggingAPI_20170126";
const HTTPS_PREFIX = "https://git-codecommit.";
const HTTPS_FIPS_PREFIX = "https://git-codecommit-fips.";
/** BatchGetRepositories accepts at most 100 names. */
const BATCH = 100;

/** Options of {@link AwsCodeCommitScm}. */
export interface AwsCodeCommitOptions {
  readonly tagFilters: ReadonlyArray<{ readonly key: string; readonly value?: string | undefined }>;
  readonly allBranches: boolean;
  /** IAM role to assume ("" for the controller's own credentials). */
  readonly role: string;
}

/** Argo CD's getTagFilters: one filter per key (first-seen order), its non-empty values OR'd. */
export function groupTagFilters(filters: AwsCodeCommitOptions["tagFilters"]): Array<{ Key: string; Values?: string[] }> {
  const byKey = new Map<string, string[]>();
  for (const f of filters) {
    const values = byKey.get(f.key) ?? [];
    if (f.value !== undefined && f.value !== "") values.push(f.value);
    byKey.set(f.key, values);
  }
  return [...byKey].map(([Key, Values]) => (Values.length === 0 ? { Key } : { Key, Values }));
}

/** The resource part of `arn:partition:service:region:account:resource`, or undefined. */
export function arnResource(arn: string): string | undefined {
  const parts = arn.split(":");
  return parts.length >= 6 && parts[0] === "arn" ? parts.slice(5).join(":") : undefined;
}

/** The clone URL for a protocol, with Argo CD's texts for the failures. */
export function codeCommitCloneUrl(meta: unknown, protocol: string): string {
  switch (protocol) {
    case "":
    case "ssh":
      return str(meta, "cloneUrlSsh");
    case "https":
      return str(meta, "cloneUrlHttp");
    case "https-fips": {
      const url = str(meta, "cloneUrlHttp");
      if (url.startsWith(HTTPS_FIPS_PREFIX)) return url;
      if (url.startsWith(HTTPS_PREFIX)) return HTTPS_FIPS_PREFIX + url.slice(HTTPS_PREFIX.length);
      throw new Error(
        `https-fips is provided but repoUrl can't be transformed to FIPS endpoint: the provided https endpoint isn't recognized, cannot be transformed to FIPS endpoint: ${url}`,
      );
    }
    default:
      throw new Error(`unknown clone protocol for codecommit ${protocol}`);
  }
}

/** `path` made absolute as GetFolder wants it (`deploy/` → `/deploy`). */
function absolute(path: string): string {
  const parts = path.split("/").filter((p) => p !== "" && p !== ".");
  return `/${parts.join("/")}`;
}

/** The SCM provider over AWS CodeCommit. */
export class AwsCodeCommitScm implements ScmProviderService {
  constructor(
    private readonly t: AwsTarget,
    private readonly o: AwsCodeCommitOptions,
  ) {}

  private async creds(): Promise<AwsCredentials> {
    const base = await baseCredentials(this.t);
    if (this.o.role === "") return base;
    return assumeRoleCached(this.t, base, this.o.role).catch((err: unknown) => {
      throw wrap(`error assuming role ${this.o.role}`, err);
    });
  }

  private async call(service: "codecommit" | "tagging", operation: string, input: unknown): Promise<unknown> {
    const target = `${service === "codecommit" ? CODECOMMIT : TAGGING}.${operation}`;
    return awsJson(this.t, await this.creds(), { service, target, input });
  }

  async listRepos(cloneProtocol: string): Promise<Repository[]> {
    let names: string[];
    try {
      names = await this.listRepoNames();
    } catch (err) {
      throw wrap("failed to list codecommit repository", err);
    }
    const metas: unknown[] = [];
    try {
      for (let i = 0; i < names.length; i += BATCH) metas.push(...(await this.batchGet(names.slice(i, i + BATCH))));
    } catch (err) {
      throw wrap("failed to get codecommit repository", err);
    }
    return metas.flatMap((meta) => {
      if (str(meta, "defaultBranch") === "") return [];
      const repo: Repository = {
        organization: str(meta, "accountId"),
        repository: str(meta, "repositoryName"),
        url: codeCommitCloneUrl(meta, cloneProtocol),
        branch: str(meta, "defaultBranch"),
        sha: "",
        labels: [],
        repositoryId: str(meta, "repositoryId"),
      };
      return [repo];
    });
  }

  /** Metadata of up to 100 repositories, in the order asked; one that vanished since the listing is skipped. */
  private async batchGet(names: string[]): Promise<unknown[]> {
    const out = await this.call("codecommit", "BatchGetRepositories", { repositoryNames: names });
    const failed = arr(out, "errors").filter((e) => str(e, "errorCode") !== "RepositoryDoesNotExistException");
    if (failed.length > 0)
      throw new AwsApiError(200, str(failed[0], "errorCode"), `${str(failed[0], "repositoryName")}: ${str(failed[0], "errorMessage")}`);
    const byName = new Map(arr(out, "repositories").map((m) => [str(m, "repositoryName"), m] as const));
    return names.flatMap((n) => (byName.has(n) ? [byName.get(n)] : []));
  }

  private async listRepoNames(): Promise<string[]> {
    const filters = groupTagFilters(this.o.tagFilters);
    const names: string[] = [];
    let token = "";
    do {
      if (filters.length === 0) {
        const out = await this.call("codecommit", "ListRepositories", token === "" ? {} : { nextToken: token });
        names.push(...arr(out, "repositories").map((r) => str(r, "repositoryName")));
        token = str(out, "nextToken");
      } else {
        const input = {
          ResourceTypeFilters: ["codecommit:repository"],
          TagFilters: filters,
          ResourcesPerPage: 100,
          ...(token === "" ? {} : { PaginationToken: token }),
        };
        const out = await this.call("tagging", "GetResources", input);
        for (const r of arr(out, "ResourceTagMappingList")) {
          const name = arnResource(str(r, "ResourceARN"));
          if (name !== undefined) names.push(name);
        }
        token = str(out, "PaginationToken");
      }
    } while (token !== "");
    return names;
  }

  async getBranches(repo: Repository): Promise<Repository[]> {
    if (!this.o.allBranches) return [repo];
    const out: Repository[] = [];
    let token = "";
    do {
      const page = await this.call("codecommit", "ListBranches", {
        repositoryName: repo.repository,
        ...(token === "" ? {} : { nextToken: token }),
      });
      for (const b of arr(page, "branches")) if (typeof b === "string") out.push({ ...repo, branch: b });
      token = str(page, "nextToken");
    } while (token !== "");
    return out;
  }

  async repoHasPath(repo: Repository, path: string): Promise<boolean> {
    const abs = absolute(path);
    if (abs === "/") return true;
    const cut = abs.lastIndexOf("/");
    const parent = cut === 0 ? "/" : abs.slice(0, cut);
    const base = abs.slice(cut + 1);
    let folder: unknown;
    try {
      folder = await this.call("codecommit", "GetFolder", {
        repositoryName: repo.repository,
        commitSpecifier: repo.branch,
        folderPath: parent,
      });
    } catch (err) {
      const gone = ["RepositoryDoesNotExistException", "CommitDoesNotExistException", "FolderDoesNotExistException"];
      if (err instanceof AwsApiError && gone.includes(err.code)) return false;
      throw err;
    }
    return ["subModules", "subFolders", "files", "symbolicLinks"].some((k) => arr(folder, k).some((e) => str(e, "relativePath") === base));
  }
}
