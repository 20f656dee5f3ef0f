import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { apiServes, repoHostPath, repoURLMatches } from "./repourl.js";

describe("repoHostPath", () => {
  it.each([
    { name: "https with .git", url: "https://github.com/Acme/Guestbook.git", out: "github.com/acme/guestbook" },
    { name: "scp-like ssh", url: "git@github.com:acme/guestbook.git", out: "github.com/acme/guestbook" },
    {
      name: "ssh:// with user and port",
      url: "ssh://git@bitbucket.example.com:7999/plat/guestbook.git",
      out: "bitbucket.example.com/plat/guestbook",
    },
    { name: "an ssh. subdomain", url: "git@ssh.dev.azure.com:v3/acme/P/R", out: "dev.azure.com/v3/acme/p/r" },
    { name: "an altssh. subdomain with port", url: "ssh://git@altssh.gitlab.com:443/acme/app.git", out: "gitlab.com/acme/app" },
    {
      name: "https with a user and a trailing slash",
      url: "https://acme@dev.azure.com/acme/P/_git/R/",
      out: "dev.azure.com/acme/p/_git/r",
    },
    { name: "a bare word", url: "guestbook", out: undefined },
    { name: "a host without a path", url: "https://github.com/", out: undefined },
  ])("reads $name", ({ url, out }) => {
    expect(repoHostPath(url)).toBe(out);
  });

  it("reads the https, scp-like and ssh:// forms of any repository as one", () => {
    const seg = fc.stringMatching(/^[a-z0-9][a-z0-9_-]{0,8}$/);
    fc.assert(
      fc.property(seg, seg, seg, (host, owner, repo) => {
        const h = `${host}.example.com`;
        const forms = [
          `https://${h}/${owner}/${repo}`,
          `git@${h}:${owner}/${repo}.git`,
          `ssh://git@${h}:2222/${owner}/${repo}.git`,
          `http://${h}/${owner}/${repo}/`,
        ];
        return new Set(forms.map(repoHostPath)).size === 1;
      }),
    );
  });
});

describe("repoURLMatches", () => {
  const urls = ["https://github.com/acme/guestbook", "git@github.com:acme/guestbook.git"];
  it.each([
    { name: "a literal URL of the repository", repoURL: "https://github.com/acme/guestbook.git", match: true },
    { name: "a literal URL of a repository whose name extends it", repoURL: "https://github.com/acme/guestbook-ops", match: false },
    { name: "a fully templated URL", repoURL: "{{ .url }}", match: true },
    { name: "a URL templated in the repository name", repoURL: "https://github.com/acme/{{ .repository }}.git", match: true },
    {
      name: "a URL templated in the repository name of another owner",
      repoURL: "https://github.com/other/{{ .repository }}",
      match: false,
    },
    { name: "a URL templated in the scheme", repoURL: "{{ .scheme }}://github.com/acme/guestbook", match: true },
  ])("matches $name: $match", ({ repoURL, match }) => {
    expect(repoURLMatches(repoURL, urls)).toBe(match);
  });
});

describe("apiServes", () => {
  it.each([
    { name: "api.github.com serves github.com", api: "https://api.github.com/", hosts: ["github.com"], serves: true },
    {
      name: "a GitHub Enterprise API serves its own host",
      api: "https://ghe.example.com/api/v3",
      hosts: ["ghe.example.com"],
      serves: true,
    },
    { name: "api.github.com does not serve GitHub Enterprise", api: "https://api.github.com/", hosts: ["ghe.example.com"], serves: false },
    { name: "any API serves an event that names no host", api: "https://x.example.com", hosts: [], serves: true },
    { name: "an unparsable API serves nothing", api: "not a url", hosts: ["github.com"], serves: false },
  ])("$name", ({ api, hosts, serves }) => {
    expect(apiServes(api, hosts)).toBe(serves);
  });
});
