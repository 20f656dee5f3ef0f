import { describe, expect, it } from "vitest";
import { receive, UNKNOWN_EVENT } from "./receive.js";
import {
  eventHeaders,
  FIXTURE_EVENTS,
  fixture,
  signed,
  signedFixture,
  TEST_SECRETS,
  type FixtureName,
} from "../../test/support/webhook-payloads.js";
import type { WebhookEvent, WebhookRequest } from "./types.js";

function post(r: { headers: Record<string, string>; body: Buffer }): WebhookRequest {
  return { method: "POST", headers: r.headers, body: r.body };
}

function accepted(req: WebhookRequest): WebhookEvent {
  const v = receive(req, TEST_SECRETS);
  if (!v.ok) throw new Error(`refused with ${String(v.status)}: ${v.message}`);
  return v.event;
}

describe("receive: each provider's documented payloads", () => {
  it.each([
    // a push: the repository's web and clone URLs, owner, name and the pushed ref
    {
      name: "a GitHub push to the default branch",
      fixture: "github-push" as FixtureName,
      event: {
        kind: "push",
        provider: "github",
        repo: {
          owner: "acme",
          name: "guestbook",
          hosts: ["github.com"],
          urls: [
            "https://github.com/acme/guestbook",
            "https://github.com/acme/guestbook.git",
            "git@github.com:acme/guestbook.git",
            "git://github.com/acme/guestbook.git",
          ],
        },
        refs: [{ revision: "main", tag: false, touchedHead: true }],
      },
    },
    {
      name: "a GitHub pull request opened (the API host is known from repository.url)",
      fixture: "github-pull-request" as FixtureName,
      event: {
        kind: "pull-request",
        provider: "github",
        action: "opened",
        repo: { owner: "acme", name: "guestbook", hosts: ["github.com", "api.github.com"] },
      },
    },
    {
      name: "a GitLab push in a subgroup",
      fixture: "gitlab-push" as FixtureName,
      event: {
        kind: "push",
        provider: "gitlab",
        repo: { owner: "acme/platform", name: "guestbook", projectId: "15", hosts: ["gitlab.example.com"] },
        refs: [{ revision: "main", tag: false, touchedHead: true }],
      },
    },
    {
      name: "a GitLab merge request opened, keyed by its target project id",
      fixture: "gitlab-merge-request" as FixtureName,
      event: {
        kind: "pull-request",
        provider: "gitlab",
        action: "open",
        repo: { owner: "acme/platform", name: "guestbook", projectId: "15" },
      },
    },
    {
      name: "an Azure DevOps push, with its organization and SSH URL",
      fixture: "azuredevops-push" as FixtureName,
      event: {
        kind: "push",
        provider: "azuredevops",
        repo: {
          owner: "Platform",
          name: "Guestbook",
          organization: "acme",
          urls: ["https://dev.azure.com/acme/Platform/_git/Guestbook", "git@ssh.dev.azure.com:v3/acme/Platform/Guestbook"],
        },
        refs: [{ revision: "main", tag: false, touchedHead: true }],
      },
    },
    {
      name: "an Azure DevOps pull request created",
      fixture: "azuredevops-pull-request" as FixtureName,
      event: {
        kind: "pull-request",
        provider: "azuredevops",
        action: "git.pullrequest.created",
        repo: { owner: "Platform", name: "Guestbook", organization: "acme" },
      },
    },
    {
      name: "a Bitbucket Server push (the default branch is unknown)",
      fixture: "bitbucketserver-push" as FixtureName,
      event: {
        kind: "push",
        provider: "bitbucketserver",
        repo: {
          owner: "PLAT",
          name: "guestbook",
          hosts: ["bitbucket.example.com"],
          urls: ["ssh://git@bitbucket.example.com:7999/plat/guestbook.git", "https://bitbucket.example.com/scm/plat/guestbook.git"],
        },
        refs: [{ revision: "main", tag: false, touchedHead: undefined }],
      },
    },
    {
      name: "a Bitbucket Server pull request opened, read from its target repository",
      fixture: "bitbucketserver-pull-request" as FixtureName,
      event: { kind: "pull-request", provider: "bitbucketserver", action: "pr:opened", repo: { owner: "PLAT", name: "guestbook" } },
    },
    {
      name: "a Bitbucket Cloud push",
      fixture: "bitbucket-push" as FixtureName,
      event: {
        kind: "push",
        provider: "bitbucket",
        repo: { owner: "acme", name: "guestbook", hosts: ["bitbucket.org"] },
        refs: [{ revision: "main", tag: false, touchedHead: undefined }],
      },
    },
    {
      name: "a Bitbucket Cloud pull request created",
      fixture: "bitbucket-pull-request" as FixtureName,
      event: { kind: "pull-request", provider: "bitbucket", action: "pullrequest:created", repo: { owner: "acme", name: "guestbook" } },
    },
    {
      name: "a Gitea push to a branch other than the default one (recognised before GitHub)",
      fixture: "gitea-push" as FixtureName,
      event: {
        kind: "push",
        provider: "gitea",
        repo: { owner: "acme", name: "guestbook", hosts: ["gitea.example.com"] },
        refs: [{ revision: "develop", tag: false, touchedHead: false }],
      },
    },
    {
      name: "a Gitea pull request opened",
      fixture: "gitea-pull-request" as FixtureName,
      event: { kind: "pull-request", provider: "gitea", action: "opened", repo: { owner: "acme", name: "guestbook" } },
    },
  ])("accepts $name", ({ fixture: name, event }) => {
    expect(accepted(post(signedFixture(name)))).toMatchObject(event);
  });

  it.each([
    {
      name: "a GitHub tag push is a push of a tag that did not move the default branch",
      fixture: "github-push" as FixtureName,
      edit: (p: Record<string, unknown>) => (p["ref"] = "refs/tags/v1.2.0"),
      refs: [{ revision: "v1.2.0", tag: true, touchedHead: false }],
    },
    {
      name: "a GitHub push to a nested branch keeps the branch's slashes",
      fixture: "github-push" as FixtureName,
      edit: (p: Record<string, unknown>) => (p["ref"] = "refs/heads/feature/x"),
      refs: [{ revision: "feature/x", tag: false, touchedHead: false }],
    },
    {
      name: "an Azure DevOps push of two refs reads both",
      fixture: "azuredevops-push" as FixtureName,
      edit: (p: Record<string, unknown>) =>
        ((p["resource"] as Record<string, unknown>)["refUpdates"] = [{ name: "refs/heads/main" }, { name: "refs/tags/v2" }]),
      refs: [
        { revision: "main", tag: false, touchedHead: true },
        { revision: "v2", tag: true, touchedHead: false },
      ],
    },
    {
      name: "a Bitbucket Cloud branch deletion is read from the old ref",
      fixture: "bitbucket-push" as FixtureName,
      edit: (p: Record<string, unknown>) => ((p["push"] as { changes: Array<Record<string, unknown>> }).changes[0]!["new"] = null),
      refs: [{ revision: "main", tag: false, touchedHead: undefined }],
    },
  ])("reads the refs when $name", ({ fixture: name, edit, refs }) => {
    expect(accepted(post(signedFixture(name, edit)))).toMatchObject({ kind: "push", refs });
  });

  it.each([
    { name: "a GitHub ping", req: signed("github", "ping", { zen: "Keep it logically awesome.", hook_id: 1 }), reason: "event ping" },
    {
      name: "a GitHub pull request review request",
      req: signedFixture("github-pull-request", (p) => (p["action"] = "review_requested")),
      reason: "pull request action review_requested",
    },
    {
      name: "a GitLab merge request approval",
      req: signedFixture("gitlab-merge-request", (p) => ((p["object_attributes"] as Record<string, unknown>)["action"] = "approved")),
      reason: "merge request action approved",
    },
    { name: "a GitLab system hook", req: signed("gitlab", "System Hook", { event_name: "project_create" }), reason: "event System Hook" },
    {
      name: "a Bitbucket Server test connection",
      req: signed("bitbucketserver", "diagnostics:ping", { test: true }),
      reason: "event diagnostics:ping",
    },
    {
      name: "an Azure DevOps work item event",
      req: signed("azuredevops", "", { eventType: "workitem.updated", resource: { repository: { name: "r", project: { name: "p" } } } }),
      reason: "event workitem.updated",
    },
  ])("accepts and ignores $name", ({ req, reason }) => {
    expect(accepted(post(req))).toMatchObject({ kind: "ignored", reason });
  });

  it("reads GitHub's form-encoded content type from its payload field", () => {
    const json = JSON.stringify(fixture("github-push"));
    const req = signed("github", "push", `payload=${encodeURIComponent(json)}`);
    req.headers["content-type"] = "application/x-www-form-urlencoded";
    expect(accepted(post(req))).toMatchObject({ kind: "push", repo: { name: "guestbook" } });
  });
});

describe("receive: refusals", () => {
  const names = Object.keys(FIXTURE_EVENTS) as FixtureName[];

  it.each(names.map((name) => ({ name })))("refuses a forged $name with 401", ({ name }) => {
    const { provider } = FIXTURE_EVENTS[name];
    const wrong = {
      github: "x",
      gitlab: "x",
      azureDevOps: { username: "hook", password: "x" },
      bitbucketServer: "x",
      bitbucketUuid: "x",
      bitbucketSecret: "x",
      gitea: "x",
    };
    const v = receive(post(signedFixture(name, () => {}, wrong)), TEST_SECRETS);
    expect(v).toMatchObject({ ok: false, status: 401, provider });
  });

  it.each(names.map((name) => ({ name })))("refuses an unsigned $name with 401", ({ name }) => {
    const { provider, event } = FIXTURE_EVENTS[name];
    const v = receive(
      { method: "POST", headers: eventHeaders(provider, event), body: Buffer.from(JSON.stringify(fixture(name))) },
      TEST_SECRETS,
    );
    expect(v).toMatchObject({ ok: false, status: 401, provider });
    expect(v.ok ? "" : v.message).toMatch(/^missing /);
  });

  it.each(names.map((name) => ({ name })))("refuses $name with 403 when its provider has no secret configured", ({ name }) => {
    const v = receive(post(signedFixture(name)), {});
    expect(v).toMatchObject({ ok: false, status: 403 });
  });

  it.each(names.map((name) => ({ name })))("refuses $name with 401 when the body was changed after signing", ({ name }) => {
    const req = signedFixture(name);
    const tampered = Buffer.from(req.body.toString("utf8").replace("guestbook", "guestbooq"));
    const v = receive({ method: "POST", headers: req.headers, body: tampered }, TEST_SECRETS);
    // GitLab and Azure DevOps do not sign the body: their token or password still holds
    if (name.startsWith("gitlab") || name.startsWith("azuredevops")) expect(v.ok).toBe(true);
    else expect(v).toMatchObject({ ok: false, status: 401 });
  });

  it.each([
    {
      name: "a body that is not JSON",
      req: signed("github", "push", "{not json"),
      message: "the body of the GitHub push event is not JSON",
    },
    {
      name: "a push without a ref",
      req: signedFixture("github-push", (p) => delete p["ref"]),
      message: "the GitHub push event is malformed at ref",
    },
    {
      name: "a GitLab push whose project has no id",
      req: signedFixture("gitlab-push", (p) => delete (p["project"] as Record<string, unknown>)["id"]),
      message: "the GitLab Push Hook is malformed at project.id",
    },
    {
      name: "an Azure DevOps event without a resource",
      req: signedFixture("azuredevops-push", (p) => delete p["resource"]),
      message: "the Azure DevOps event is malformed at resource",
    },
    {
      name: "a Bitbucket Cloud repository without a workspace",
      req: signedFixture("bitbucket-push", (p) => ((p["repository"] as Record<string, unknown>)["full_name"] = "guestbook")),
      message: "the Bitbucket repo:push event is malformed at repository.full_name",
    },
    {
      name: "a Bitbucket Server push without changes",
      req: signedFixture("bitbucketserver-push", (p) => delete p["changes"]),
      message: "the Bitbucket Server repo:refs_changed event is malformed at changes",
    },
    {
      name: "a Gitea pull request without an action",
      req: signedFixture("gitea-pull-request", (p) => delete p["action"]),
      message: "the Gitea pull_request event is malformed at action",
    },
    {
      name: "a JSON array where an object is expected",
      req: signed("gitlab", "Push Hook", "[]"),
      message: "the GitLab Push Hook is malformed",
    },
  ])("refuses $name with 400 after checking its signature", ({ req, message }) => {
    const v = receive(post(req), TEST_SECRETS);
    expect(v).toMatchObject({ ok: false, status: 400 });
    expect(v.ok ? "" : v.message).toContain(message);
  });

  it.each([
    {
      name: "a request no provider recognises",
      req: { method: "POST", headers: { "content-type": "application/json" }, body: Buffer.from("{}") },
      status: 400,
      message: UNKNOWN_EVENT,
    },
    {
      name: "a GET",
      req: { method: "GET", headers: eventHeaders("github", "push"), body: Buffer.alloc(0) },
      status: 405,
      message: "method GET is not allowed, use POST",
    },
  ])("refuses $name", ({ req, status, message }) => {
    expect(receive(req, TEST_SECRETS)).toMatchObject({ ok: false, status, message });
  });

  it("checks the Bitbucket Cloud hook UUID alone when no secret is set, and both when both are", () => {
    const req = signedFixture("bitbucket-push", () => {}, { bitbucketUuid: TEST_SECRETS.bitbucketUuid });
    expect(receive(post(req), { bitbucketUuid: TEST_SECRETS.bitbucketUuid }).ok).toBe(true);
    expect(receive(post(req), TEST_SECRETS)).toMatchObject({ ok: false, status: 401, message: "missing X-Hub-Signature header" });
  });
});
