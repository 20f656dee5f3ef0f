/**
 * The provider-neutral shape of a verified webhook event, as the matching code sees it. Each
 * provider's parser (providers/*.ts) turns its own payload into one of these.
 */

/** The Git hosting products whose webhooks are understood. */
export const PROVIDERS = ["github", "gitlab", "azuredevops", "bitbucketserver", "bitbucket", "gitea"] as const;
export type ProviderName = (typeof PROVIDERS)[number];

/** Everything that sends webhooks: the Git hosts and the registries (GitHub's container registry). */
export type SenderName = ProviderName | "ghcr";

/** The repository an event is about (for a pull request: its target repository). */
export interface EventRepo {
  /** Web and clone URLs of the repository, in any form (https, ssh://, scp-like `git@host:path`). */
  readonly urls: readonly string[];
  /** Lower-case host names the repository is served from (web host, and API host when the payload names it). */
  readonly hosts: readonly string[];
  /**
   * The owner: GitHub or Gitea owner login, GitLab namespace path, Bitbucket Cloud workspace,
   * Bitbucket Server project key, Azure DevOps project.
   */
  readonly owner: string;
  /** The repository name (slug). */
  readonly name: string;
  /** GitLab's numeric project id. */
  readonly projectId?: string;
  /** Azure DevOps organization, when the repository URL names it. */
  readonly organization?: string;
}

/** One ref a push moved. */
export interface PushedRef {
  /** The ref without its first two segments (`refs/heads/feature/x` → `feature/x`). */
  readonly revision: string;
  /** The ref is a tag (`refs/tags/…`). */
  readonly tag: boolean;
  /** The push moved the default branch; undefined when the payload does not say which branch that is. */
  readonly touchedHead: boolean | undefined;
}

/** A push: refreshes Git and SCM Provider generators. */
export interface PushEvent {
  readonly kind: "push";
  readonly provider: ProviderName;
  readonly repo: EventRepo;
  readonly refs: readonly PushedRef[];
}

/** A pull request change: refreshes Pull Request generators. */
export interface PullRequestEvent {
  readonly kind: "pull-request";
  readonly provider: ProviderName;
  readonly repo: EventRepo;
  /** The provider's action or event name (`opened`, `merge`, `pr:declined`, …). */
  readonly action: string;
}

/** A tag pushed to an OCI repository: refreshes OCI generators. */
export interface RegistryEvent {
  readonly kind: "registry";
  readonly provider: "ghcr";
  /** The repository as Argo CD normalises it: `oci://` and a trailing `/` dropped, lower case (`ghcr.io/owner/name`). */
  readonly repository: string;
  readonly tag: string;
}

/** A verified event that can change no generator's output (a ping, a review comment, …). */
export interface IgnoredEvent {
  readonly kind: "ignored";
  readonly provider: SenderName;
  readonly reason: string;
}

/** What a verified request carried. */
export type WebhookEvent = PushEvent | PullRequestEvent | RegistryEvent | IgnoredEvent;

/** The shared secrets of each provider (Argo CD's `argocd-secret` keys, see secrets.ts). */
export interface WebhookSecrets {
  /** `webhook.github.secret`: HMAC-SHA256 key of `X-Hub-Signature-256`. */
  readonly github?: string;
  /** `webhook.gitlab.secret`: the `X-Gitlab-Token` value. */
  readonly gitlab?: string;
  /** `webhook.azuredevops.username` / `.password`: the basic auth of the service hook. */
  readonly azureDevOps?: { readonly username: string; readonly password: string };
  /** `webhook.bitbucketserver.secret`: HMAC-SHA256 key of `X-Hub-Signature`. */
  readonly bitbucketServer?: string;
  /** `webhook.bitbucket.uuid`: the `X-Hook-UUID` of the Bitbucket Cloud webhook. */
  readonly bitbucketUuid?: string;
  /** `webhook.bitbucket.secret`: HMAC-SHA256 key of Bitbucket Cloud's `X-Hub-Signature`. */
  readonly bitbucketSecret?: string;
  /** `webhook.gitea.secret`, else `webhook.gogs.secret`: HMAC-SHA256 key of `X-Gitea-Signature`. */
  readonly gitea?: string;
}

/** A request as the pure part sees it: method, lower-case header names, raw body. */
export interface WebhookRequest {
  readonly method: string;
  readonly headers: Readonly<Record<string, string | undefined>>;
  readonly body: Buffer;
}

/** The answer to a request, and the event when one was accepted. */
export type Verdict =
  | { readonly ok: true; readonly provider: SenderName; readonly event: WebhookEvent }
  | { readonly ok: false; readonly status: number; readonly message: string; readonly provider?: SenderName };
