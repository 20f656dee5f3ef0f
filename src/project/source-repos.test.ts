import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { AppProject } from "../api/appproject.js";
import { isSourcePermitted } from "./source-repos.js";

const project = (sourceRepos: string[] | undefined): Pick<AppProject, "spec"> => ({ spec: { sourceRepos } });

describe("isSourcePermitted (a project's sourceRepos)", () => {
  it.each([
    // repos: the project's sourceRepos
    // url: the Application's repoURL
    // permitted: the expected answer
    { name: "a star allows any repository", repos: ["*"], url: "https://github.com/argoproj/test.git", permitted: true },
    {
      name: "the same URL is allowed",
      repos: ["https://github.com/argoproj/test.git"],
      url: "https://github.com/argoproj/test.git",
      permitted: true,
    },
    {
      name: "URLs compare case-insensitively",
      repos: ["ssh://git@GITHUB.com:argoproj/test"],
      url: "ssh://git@github.com:argoproj/test",
      permitted: true,
    },
    {
      name: "a star in the last segment allows a repository there",
      repos: ["https://github.com/argoproj/*"],
      url: "https://github.com/argoproj/argoproj.git",
      permitted: true,
    },
    {
      name: "any entry of several may allow",
      repos: ["https://github.com/test1/test.git", "https://github.com/test2/test.git"],
      url: "https://github.com/test2/test.git",
      permitted: true,
    },
    {
      name: "another repository is not allowed",
      repos: ["https://github.com/argoproj/test1.git"],
      url: "https://github.com/argoproj/test2.git",
      permitted: false,
    },
    {
      name: "a star does not widen the owner",
      repos: ["https://github.com/argoproj/*.git"],
      url: "https://github.com/argoproj1/test2.git",
      permitted: false,
    },
    {
      name: "a literal is not a prefix",
      repos: ["https://github.com/argoproj/foo"],
      url: "https://github.com/argoproj/foo1",
      permitted: false,
    },
    {
      name: "a star does not cross a slash",
      repos: ["https://gitlab.com/group/*"],
      url: "https://gitlab.com/group/repo/owner",
      permitted: false,
    },
    {
      name: "one star per segment matches two segments",
      repos: ["https://gitlab.com/group/*/*"],
      url: "https://gitlab.com/group/repo/owner",
      permitted: true,
    },
    {
      name: "three stars match three segments",
      repos: ["https://gitlab.com/group/*/*/*"],
      url: "https://gitlab.com/group/sub-group/repo/owner",
      permitted: true,
    },
    {
      name: "a double star crosses segments",
      repos: ["https://gitlab.com/group/**"],
      url: "https://gitlab.com/group/sub-group/repo/owner",
      permitted: true,
    },
    {
      name: "a host-wide double star allows every repository of the host",
      repos: ["https://github.com/**"],
      url: "https://github.com/argoproj/argocd-example-apps.git",
      permitted: true,
    },
    {
      name: "a host-wide double star does not allow another host",
      repos: ["https://github.com/**"],
      url: "https://gitlab.com/group/repo.git",
      permitted: false,
    },
    {
      name: "a host-wide single star does not allow two segments",
      repos: ["https://github.com/*"],
      url: "https://github.com/argoproj/test.git",
      permitted: false,
    },
    {
      name: "a denial refuses the URL it names",
      repos: ["!https://github.com/argoproj/test.git"],
      url: "https://github.com/argoproj/test.git",
      permitted: false,
    },
    {
      name: "a denial compares case-insensitively",
      repos: ["!ssh://git@GITHUB.com:argoproj/test"],
      url: "ssh://git@github.com:argoproj/test",
      permitted: false,
    },
    {
      name: "a denial with a star refuses its segment",
      repos: ["!https://github.com/argoproj/*"],
      url: "https://github.com/argoproj/argoproj.git",
      permitted: false,
    },
    {
      name: "a denial wins over an allow of another repository",
      repos: ["https://github.com/test1/test.git", "!https://github.com/test2/test.git"],
      url: "https://github.com/test2/test.git",
      permitted: false,
    },
    {
      name: "a denial alone allows nothing else",
      repos: ["!https://github.com/argoproj/foo*"],
      url: "https://github.com/argoproj/foo1",
      permitted: false,
    },
    {
      name: "a denial with a double star refuses nested repositories",
      repos: ["!https://gitlab.com/group/**"],
      url: "https://gitlab.com/group/sub-group/repo/owner",
      permitted: false,
    },
    {
      name: "a host denial wins over a star",
      repos: ["*", "!https://github.com/**"],
      url: "https://github.com/argoproj/test.git",
      permitted: false,
    },
    {
      name: "a host denial leaves other hosts to the star",
      repos: ["*", "!https://github.com/**"],
      url: "https://gitlab.com/group/repo.git",
      permitted: true,
    },
    {
      name: "a star after a non-matching entry allows",
      repos: ["https://github.com/argoproj/test1.git", "*"],
      url: "https://github.com/argoproj/test2.git",
      permitted: true,
    },
    {
      name: "a denial of another owner leaves the star",
      repos: ["!https://github.com/argoproj/*.git", "*"],
      url: "https://github.com/argoproj1/test2.git",
      permitted: true,
    },
    { name: "an absent list allows nothing", repos: undefined, url: "https://github.com/argoproj/test.git", permitted: false },
    {
      name: "an scp-like entry matches its ssh:// form",
      repos: ["git@github.com:argoproj/test.git"],
      url: "ssh://git@github.com/argoproj/test",
      permitted: true,
    },
  ])("$name", ({ repos, url, permitted }) => {
    expect(isSourcePermitted(project(repos), url)).toBe(permitted);
  });

  it("lets a denial that names the repository win over any allow, wherever it stands", () => {
    const segment = fc.stringMatching(/^[a-z][a-z0-9-]{0,8}$/);
    const allow = fc.constantFrom("*", "https://github.com/**", "https://github.com/*/*");
    fc.assert(
      fc.property(segment, segment, fc.array(allow, { maxLength: 3 }), fc.nat(3), (owner, repo, allows, at) => {
        const url = `https://github.com/${owner}/${repo}`;
        const repos: string[] = [...allows];
        repos.splice(Math.min(at, repos.length), 0, `!${url}`);
        expect(isSourcePermitted(project(repos), url)).toBe(false);
      }),
    );
  });
});
