/**
 * Azure DevOps service hooks (recognised by `X-Vss-Activityid`): `git.push` and the pull request
 * events `git.pullrequest.created`, `.updated` and `.merged`, authenticated by the hook's basic
 * auth (`webhook.azuredevops.username` / `.password`). Every ref of a push is read (Argo CD reads
 * the first), and the repository is known by its HTTPS and SSH URLs both.
 */
import { z } from "zod";
import { hostsOf, pushedRef } from "../repourl.js";
import { checkBasicAuth } from "../verify.js";
import type { EventRepo, WebhookEvent, WebhookRequest } from "../types.js";
import { decodeJson, present, type ProviderSpec } from "./common.js";

const repositorySchema = z.looseObject({
  name: z.string(),
  url: z.string().optional(),
  remoteUrl: z.string().optional(),
  sshUrl: z.string().optional(),
  defaultBranch: z.string().optional(),
  project: z.looseObject({ name: z.string() }),
});

const bodySchema = z.looseObject({
  eventType: z.string(),
  resource: z.looseObject({
    repository: repositorySchema,
    refUpdates: z.array(z.looseObject({ name: z.string() })).optional(),
  }),
});

/** Pull request event types that refresh (Argo CD's list). */
export const AZURE_PR_EVENTS: ReadonlySet<string> = new Set([
  "git.pullrequest.created",
  "git.pullrequest.updated",
  "git.pullrequest.merged",
]);

/** The organization in `https://dev.azure.com/{org}/…` or `https://{org}.visualstudio.com/…`. */
export function azureOrganization(url: string | undefined): string | undefined {
  if (url === undefined) return undefined;
  const m = /^https?:\/\/(?:[^@/]*@)?(?:dev\.azure\.com\/([^/]+)|([^./]+)\.visualstudio\.com)\//i.exec(url);
  const org = m?.[1] ?? m?.[2];
  return org === undefined ? undefined : decodeURIComponent(org);
}

function repoOf(r: z.infer<typeof repositorySchema>): EventRepo {
  const organization = azureOrganization(r.remoteUrl ?? r.url);
  const ssh = organization === undefined ? undefined : `git@ssh.dev.azure.com:v3/${organization}/${r.project.name}/${r.name}`;
  const urls = present(r.remoteUrl, r.sshUrl, ssh);
  return {
    urls,
    hosts: hostsOf(present(r.remoteUrl, r.url)),
    owner: r.project.name,
    name: r.name,
    ...(organization ? { organization } : {}),
  };
}

function parse(req: WebhookRequest): WebhookEvent {
  const p = decodeJson(req.body, bodySchema, "Azure DevOps event");
  const repo = repoOf(p.resource.repository);
  if (p.eventType === "git.push") {
    const refs = (p.resource.refUpdates ?? []).map((u) => pushedRef(u.name, p.resource.repository.defaultBranch));
    return { kind: "push", provider: "azuredevops", repo, refs };
  }
  if (AZURE_PR_EVENTS.has(p.eventType)) return { kind: "pull-request", provider: "azuredevops", repo, action: p.eventType };
  return { kind: "ignored", provider: "azuredevops", reason: `event ${p.eventType}` };
}

/** Azure DevOps' webhook dialect. */
export const azureDevOps: ProviderSpec = {
  name: "azuredevops",
  detect: (h) => h["x-vss-activityid"] !== undefined,
  verify: (req, secrets) => checkBasicAuth(secrets.azureDevOps, req.headers["authorization"]),
  parse,
};
