import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseApplicationSet, type ApplicationSet } from "../api/index.js";
import { affectedGenerator, isSemverConstraint, revisionFollows } from "./match.js";
import { receive } from "./receive.js";
import { signedFixture, TEST_SECRETS, type FixtureName } from "../../test/support/webhook-payloads.js";
import type { WebhookEvent } from "./types.js";

function appSet(generators: unknown[]): ApplicationSet {
  const res = parseApplicationSet({
    apiVersion: "argoproj.io/v1alpha1",
    kind: "ApplicationSet",
    metadata: { name: "a", namespace: "argocd" },
    spec: { generators, template: { metadata: { name: "x" }, spec: { project: "default", destination: {} } } },
  });
  if (!res.ok) throw res.error;
  return res.value;
}

function event(name: FixtureName, edit?: (p: Record<string, unknown>) => void): WebhookEvent {
  const v = receive({ method: "POST", ...signedFixture(name, edit) }, TEST_SECRETS);
  if (!v.ok) throw new Error(v.message);
  return v.event;
}

const setRef = (ref: string) => (p: Record<string, unknown>) => (p["ref"] = ref);
const git = (repoURL: string, revision = "HEAD") => ({ git: { repoURL, revision, directories: [{ path: "apps/*" }] } });
const list = { list: { elements: [{ cluster: "a" }] } };

describe("affectedGenerator", () => {
  it.each([
    // Git generators: the repository in any URL form, and the revision
    {
      name: "a Git generator on HEAD by a push to the default branch",
      gens: [git("https://github.com/acme/guestbook.git")],
      ev: event("github-push"),
      hit: "generators[0].git",
    },
    {
      name: "a Git generator in SSH form",
      gens: [git("git@github.com:ACME/guestbook")],
      ev: event("github-push"),
      hit: "generators[0].git",
    },
    {
      name: "a Git generator on ssh:// with a port",
      gens: [git("ssh://git@github.com:22/acme/guestbook.git", "main")],
      ev: event("github-push"),
      hit: "generators[0].git",
    },
    {
      name: "no Git generator of another repository",
      gens: [git("https://github.com/acme/guestbook-ops")],
      ev: event("github-push"),
      hit: undefined,
    },
    {
      name: "no Git generator on another host",
      gens: [git("https://gitlab.com/acme/guestbook")],
      ev: event("github-push"),
      hit: undefined,
    },
    {
      name: "no Git generator on HEAD by a push to another branch",
      gens: [git("https://github.com/acme/guestbook")],
      ev: event("github-push", setRef("refs/heads/dev")),
      hit: undefined,
    },
    {
      name: "a Git generator on refs/heads/dev by a push to dev",
      gens: [git("https://github.com/acme/guestbook", "refs/heads/dev")],
      ev: event("github-push", setRef("refs/heads/dev")),
      hit: "generators[0].git",
    },
    {
      name: "a Git generator on a nested branch name",
      gens: [git("https://github.com/acme/guestbook", "feature/x")],
      ev: event("github-push", setRef("refs/heads/feature/x")),
      hit: "generators[0].git",
    },
    {
      name: "no Git generator pinned to a commit",
      gens: [git("https://github.com/acme/guestbook", "6113728f27ae82c7b1a177c8d03f9e96e0adf246")],
      ev: event("github-push"),
      hit: undefined,
    },
    {
      name: "a Git generator on a tag by that tag's push",
      gens: [git("https://github.com/acme/guestbook", "v1.2.0")],
      ev: event("github-push", setRef("refs/tags/v1.2.0")),
      hit: "generators[0].git",
    },
    {
      name: "a Git generator on a semver constraint by a version tag",
      gens: [git("https://github.com/acme/guestbook", "v1.*")],
      ev: event("github-push", setRef("refs/tags/v1.3.0")),
      hit: "generators[0].git",
    },
    {
      name: "no Git generator on HEAD by a tag push",
      gens: [git("https://github.com/acme/guestbook")],
      ev: event("github-push", setRef("refs/tags/v1.3.0")),
      hit: undefined,
    },
    {
      name: "a Git generator on HEAD by a Bitbucket Server push (its default branch is unknown)",
      gens: [git("https://bitbucket.example.com/scm/plat/guestbook.git")],
      ev: event("bitbucketserver-push"),
      hit: "generators[0].git",
    },
    {
      name: "a Git generator by a GitLab push in a subgroup",
      gens: [git("git@gitlab.example.com:acme/platform/guestbook.git")],
      ev: event("gitlab-push"),
      hit: "generators[0].git",
    },
    {
      name: "a Git generator over Azure DevOps SSH by an Azure push",
      gens: [git("git@ssh.dev.azure.com:v3/acme/Platform/Guestbook")],
      ev: event("azuredevops-push"),
      hit: "generators[0].git",
    },
    {
      name: "a Git generator by a Bitbucket Cloud push",
      gens: [git("https://bitbucket.org/acme/guestbook.git", "main")],
      ev: event("bitbucket-push"),
      hit: "generators[0].git",
    },
    {
      name: "a Git generator on develop by a Gitea push",
      gens: [git("https://gitea.example.com/acme/guestbook", "develop")],
      ev: event("gitea-push"),
      hit: "generators[0].git",
    },
    {
      name: "no Git generator by a pull request event",
      gens: [git("https://github.com/acme/guestbook")],
      ev: event("github-pull-request"),
      hit: undefined,
    },
  ])("refreshes $name", ({ gens, ev, hit }) => {
    expect(affectedGenerator(appSet(gens), ev)).toBe(hit);
  });

  it.each([
    // Pull Request generators: the target repository, on the generator's API host
    {
      name: "a GitHub pull request generator",
      gens: [{ pullRequest: { github: { owner: "ACME", repo: "Guestbook" } } }],
      ev: event("github-pull-request"),
      hit: "generators[0].pullRequest",
    },
    {
      name: "no GitHub pull request generator of GitHub Enterprise",
      gens: [{ pullRequest: { github: { owner: "acme", repo: "guestbook", api: "https://ghe.example.com/api/v3" } } }],
      ev: event("github-pull-request"),
      hit: undefined,
    },
    {
      name: "no GitHub pull request generator of another repository",
      gens: [{ pullRequest: { github: { owner: "acme", repo: "other" } } }],
      ev: event("github-pull-request"),
      hit: undefined,
    },
    {
      name: "a GitLab merge request generator by numeric project id",
      gens: [{ pullRequest: { gitlab: { project: "15", api: "https://gitlab.example.com/" } } }],
      ev: event("gitlab-merge-request"),
      hit: "generators[0].pullRequest",
    },
    {
      name: "a GitLab merge request generator by project path",
      gens: [{ pullRequest: { gitlab: { project: "acme/platform/guestbook", api: "https://gitlab.example.com" } } }],
      ev: event("gitlab-merge-request"),
      hit: "generators[0].pullRequest",
    },
    {
      name: "no GitLab merge request generator on gitlab.com",
      gens: [{ pullRequest: { gitlab: { project: "15" } } }],
      ev: event("gitlab-merge-request"),
      hit: undefined,
    },
    {
      name: "an Azure DevOps pull request generator",
      gens: [{ pullRequest: { azuredevops: { organization: "acme", project: "Platform", repo: "Guestbook" } } }],
      ev: event("azuredevops-pull-request"),
      hit: "generators[0].pullRequest",
    },
    {
      name: "no Azure DevOps pull request generator of another organization",
      gens: [{ pullRequest: { azuredevops: { organization: "other", project: "Platform", repo: "Guestbook" } } }],
      ev: event("azuredevops-pull-request"),
      hit: undefined,
    },
    {
      name: "a Bitbucket Server pull request generator",
      gens: [{ pullRequest: { bitbucketServer: { project: "PLAT", repo: "guestbook", api: "https://bitbucket.example.com/rest" } } }],
      ev: event("bitbucketserver-pull-request"),
      hit: "generators[0].pullRequest",
    },
    {
      name: "a Bitbucket Cloud pull request generator",
      gens: [{ pullRequest: { bitbucket: { owner: "acme", repo: "guestbook" } } }],
      ev: event("bitbucket-pull-request"),
      hit: "generators[0].pullRequest",
    },
    {
      name: "a Gitea pull request generator",
      gens: [{ pullRequest: { gitea: { owner: "acme", repo: "guestbook", api: "https://gitea.example.com/" } } }],
      ev: event("gitea-pull-request"),
      hit: "generators[0].pullRequest",
    },
    {
      name: "no Gitea pull request generator by a GitHub event",
      gens: [{ pullRequest: { gitea: { owner: "acme", repo: "guestbook", api: "https://github.com/" } } }],
      ev: event("github-pull-request"),
      hit: undefined,
    },
    {
      name: "no pull request generator by a push",
      gens: [{ pullRequest: { github: { owner: "acme", repo: "guestbook" } } }],
      ev: event("github-push"),
      hit: undefined,
    },
  ])("refreshes $name", ({ gens, ev, hit }) => {
    expect(affectedGenerator(appSet(gens), ev)).toBe(hit);
  });

  it.each([
    // SCM Provider generators: a push to any repository of the organisation
    {
      name: "a GitHub SCM provider of the organisation",
      gens: [{ scmProvider: { github: { organization: "acme" } } }],
      ev: event("github-push"),
      hit: "generators[0].scmProvider",
    },
    {
      name: "no GitHub SCM provider of another organisation",
      gens: [{ scmProvider: { github: { organization: "other" } } }],
      ev: event("github-push"),
      hit: undefined,
    },
    {
      name: "a GitLab SCM provider of the parent group with subgroups",
      gens: [
        {
          scmProvider: {
            gitlab: { group: "acme", api: "https://gitlab.example.com/", includeSubgroups: true, includeSharedProjects: false },
          },
        },
      ],
      ev: event("gitlab-push"),
      hit: "generators[0].scmProvider",
    },
    {
      name: "no GitLab SCM provider of the parent group without subgroups or shared projects",
      gens: [{ scmProvider: { gitlab: { group: "acme", api: "https://gitlab.example.com/", includeSharedProjects: false } } }],
      ev: event("gitlab-push"),
      hit: undefined,
    },
    {
      name: "a GitLab SCM provider that includes shared projects (they may live anywhere on the host)",
      gens: [{ scmProvider: { gitlab: { group: "other", api: "https://gitlab.example.com/" } } }],
      ev: event("gitlab-push"),
      hit: "generators[0].scmProvider",
    },
    {
      name: "an Azure DevOps SCM provider of the team project",
      gens: [
        { scmProvider: { azureDevOps: { organization: "acme", teamProject: "Platform", accessTokenRef: { secretName: "s", key: "k" } } } },
      ],
      ev: event("azuredevops-push"),
      hit: "generators[0].scmProvider",
    },
    {
      name: "a Bitbucket Server SCM provider of the project",
      gens: [{ scmProvider: { bitbucketServer: { project: "plat", api: "https://bitbucket.example.com/" } } }],
      ev: event("bitbucketserver-push"),
      hit: "generators[0].scmProvider",
    },
    {
      name: "a Bitbucket Cloud SCM provider of the workspace",
      gens: [{ scmProvider: { bitbucket: { owner: "acme", user: "u", appPasswordRef: { secretName: "s", key: "k" } } } }],
      ev: event("bitbucket-push"),
      hit: "generators[0].scmProvider",
    },
    {
      name: "a Gitea SCM provider of the owner",
      gens: [{ scmProvider: { gitea: { owner: "acme", api: "https://gitea.example.com" } } }],
      ev: event("gitea-push"),
      hit: "generators[0].scmProvider",
    },
    {
      name: "no SCM provider by a pull request",
      gens: [{ scmProvider: { github: { organization: "acme" } } }],
      ev: event("github-pull-request"),
      hit: undefined,
    },
  ])("refreshes $name", ({ gens, ev, hit }) => {
    expect(affectedGenerator(appSet(gens), ev)).toBe(hit);
  });

  it.each([
    // Plugins, Matrix and Merge
    {
      name: "no Plugin generator whose input does not name the repository",
      gens: [{ plugin: { configMapRef: { name: "p" }, input: { parameters: { env: "prod" } } } }],
      ev: event("github-push"),
      hit: undefined,
    },
    {
      name: "a Plugin generator whose input names the repository URL",
      gens: [{ plugin: { configMapRef: { name: "p" }, input: { parameters: { repos: ["https://github.com/acme/guestbook"] } } } }],
      ev: event("github-push"),
      hit: "generators[0].plugin",
    },
    {
      name: "a Plugin generator whose input names owner/name",
      gens: [{ plugin: { configMapRef: { name: "p" }, input: { parameters: { repo: "acme/guestbook" } } } }],
      ev: event("github-pull-request"),
      hit: "generators[0].plugin",
    },
    {
      name: "the second child of a Matrix",
      gens: [{ matrix: { generators: [list, git("https://github.com/acme/guestbook")] } }],
      ev: event("github-push"),
      hit: "generators[0].matrix.generators[1].git",
    },
    {
      name: "a Matrix whose Git child follows an SCM provider's repositories",
      gens: [{ matrix: { generators: [{ scmProvider: { github: { organization: "other" } } }, git("{{ .url }}", "{{ .branch }}")] } }],
      ev: event("github-push"),
      hit: "generators[0].matrix.generators[1].git",
    },
    {
      name: "a Merge child",
      gens: [{ merge: { mergeKeys: ["cluster"], generators: [list, { pullRequest: { github: { owner: "acme", repo: "guestbook" } } }] } }],
      ev: event("github-pull-request"),
      hit: "generators[0].merge.generators[1].pullRequest",
    },
    {
      name: "a Git generator in a Merge nested in a Matrix",
      gens: [
        list,
        { matrix: { generators: [list, { merge: { mergeKeys: ["a"], generators: [list, git("https://github.com/acme/guestbook")] } }] } },
      ],
      ev: event("github-push"),
      hit: "generators[1].matrix.generators[1].merge.generators[1].git",
    },
    {
      name: "nothing with only List and Cluster generators",
      gens: [list, { clusters: {} }, { matrix: { generators: [list, { clusters: {} }] } }],
      ev: event("github-push"),
      hit: undefined,
    },
    {
      name: "nothing by an ignored event",
      gens: [git("https://github.com/acme/guestbook")],
      ev: { kind: "ignored", provider: "github", reason: "ping" } as WebhookEvent,
      hit: undefined,
    },
  ])("refreshes $name", ({ gens, ev, hit }) => {
    expect(affectedGenerator(appSet(gens), ev)).toBe(hit);
  });
});

describe("revisionFollows", () => {
  it.each([
    {
      name: "HEAD follows a push whose default branch is unknown",
      rev: "HEAD",
      ref: { revision: "x", tag: false, touchedHead: undefined },
      follows: true,
    },
    {
      name: "an empty revision follows the default branch",
      rev: "",
      ref: { revision: "main", tag: false, touchedHead: true },
      follows: true,
    },
    {
      name: "a branch does not follow a tag of the same name's prefix",
      rev: "v1",
      ref: { revision: "v1.0.0", tag: true, touchedHead: false },
      follows: false,
    },
    {
      name: "a semver range follows a version tag",
      rev: ">=1.0.0 <2.0.0",
      ref: { revision: "1.4.2", tag: true, touchedHead: false },
      follows: true,
    },
    {
      name: "a semver range does not follow a branch push",
      rev: "1.x",
      ref: { revision: "1.5.0", tag: false, touchedHead: false },
      follows: false,
    },
  ])("$name", ({ rev, ref, follows }) => {
    expect(revisionFollows(rev, ref)).toBe(follows);
  });

  it.each([
    { value: "1.2.x", constraint: true },
    { value: "^1.2", constraint: true },
    { value: "v1.*", constraint: true },
    { value: "release-x", constraint: false },
    { value: "1.2.3", constraint: false },
    { value: "main", constraint: false },
  ])("reads $value as a semver constraint: $constraint", ({ value, constraint }) => {
    expect(isSemverConstraint(value)).toBe(constraint);
  });

  it("makes any branch name follow a push of exactly that branch", () => {
    const branch = fc.stringMatching(/^[a-z][a-z0-9._-]{0,10}(\/[a-z0-9._-]{1,8}){0,2}$/);
    fc.assert(
      fc.property(
        branch,
        (b) =>
          revisionFollows(b, { revision: b, tag: false, touchedHead: false }) &&
          revisionFollows(`refs/heads/${b}`, { revision: b, tag: false, touchedHead: false }),
      ),
    );
  });
});
