import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { gitOrigin, normalizeGitURL, normalizeGitURLAllowInvalid, sameGitOrigin, sameGitURL } from "./url.js";

describe("normalizeGitURL (Argo CD's NormalizeGitURL)", () => {
  it.each([
    // name; URL as written; its normalised form
    {
      name: "https, in lower case and without .git",
      url: "HTTPS://GitHub.com/ArgoProj/Argo-CD.git",
      out: "https://github.com/argoproj/argo-cd",
    },
    { name: "https with blanks around it", url: " \thttps://github.com/o/r\n", out: "https://github.com/o/r" },
    { name: "https with a port", url: "https://github.com:4443/o/r.git", out: "https://github.com:4443/o/r" },
    { name: "https with a trailing slash, which stays", url: "https://github.com/o/r/", out: "https://github.com/o/r/" },
    {
      name: "https with .git before a trailing slash, which stays",
      url: "https://github.com/o/r.git/",
      out: "https://github.com/o/r.git/",
    },
    { name: "https with .git twice, losing one", url: "https://github.com/o/r.git.git", out: "https://github.com/o/r.git" },
    { name: "an scp-like URL, the colon becoming a slash", url: "git@github.com:o/r.git", out: "git@github.com/o/r" },
    { name: "an scp-like URL with a port-like path", url: "git@github.com:22/o/r", out: "git@github.com/22/o/r" },
    { name: "an ssh:// URL, without the scheme", url: "ssh://git@github.com/o/r.git", out: "git@github.com/o/r" },
    { name: "an ssh:// URL with a port, which stays", url: "ssh://git@github.com:22/o/r", out: "git@github.com:22/o/r" },
    {
      name: "a path with a blank, percent-encoded as Go writes it",
      url: "https://dev.azure.com/org/My Project/_git/repo",
      out: "https://dev.azure.com/org/my%20project/_git/repo",
    },
    {
      name: "a path already percent-encoded, as written",
      url: "https://dev.azure.com/org/my%20project/_git/repo",
      out: "https://dev.azure.com/org/my%20project/_git/repo",
    },
    { name: "a password with an @, percent-encoded", url: "https://user:p@ss@host/o/r", out: "https://user:p%40ss@host/o/r" },
    { name: "a port that is not a number, as invalid", url: "https://github.com:port/o/r", out: "" },
    { name: "an IPv6 host with a port", url: "https://[::1]:8443/o/r.git", out: "https://[::1]:8443/o/r" },
    { name: "an IPv6 host without its closing bracket, as invalid", url: "https://[::1/o/r", out: "" },
    { name: "a host with a blank, as invalid", url: "https://git hub.com/o/r", out: "" },
    { name: "a malformed percent escape, as invalid", url: "https://github.com/o/%zz", out: "" },
    { name: "a control character, as invalid", url: "https://github.com/o/r\u0001x", out: "" },
    { name: "the empty string", url: "", out: "" },
  ])("reads $name", ({ url, out }) => {
    expect(normalizeGitURL(url)).toBe(out);
  });

  it("gives the same form again for its own output, unless that still ends in .git", () => {
    const seg = fc.stringMatching(/^[a-z0-9][a-z0-9._-]{0,8}$/);
    fc.assert(
      fc.property(fc.constantFrom("https://", "http://", "ssh://git@", "git@"), seg, seg, seg, (prefix, host, owner, repo) => {
        const once = normalizeGitURL(`${prefix}${host}.example.com${prefix === "git@" ? ":" : "/"}${owner}/${repo}`);
        fc.pre(!once.endsWith(".git"));
        expect(once).not.toBe("");
        expect(normalizeGitURL(once)).toBe(once);
      }),
    );
  });
});

describe("sameGitURL (Argo CD's SameURL)", () => {
  it.each([
    // name; two URLs; whether they name one repository
    {
      name: "scp-like with and without .git, any case",
      a: "git@GITHUB.com:argoproj/test",
      b: "git@github.com:argoproj/test.git",
      same: true,
    },
    { name: "ssh:// and scp-like", a: "ssh://git@GITHUB.com/argoproj/test", b: "git@github.com:argoproj/test.git", same: true },
    { name: "https with and without .git", a: "https://GITHUB.com/argoproj/test", b: "https://github.com/argoproj/test.git", same: true },
    {
      name: "https with a port, with and without .git",
      a: "https://github.com:4443/TEST",
      b: "https://github.com:4443/TEST.git",
      same: true,
    },
    {
      name: "https with blanks around one",
      a: "\thttps://github.com/argoproj/test\n",
      b: "https://github.com/argoproj/test.git",
      same: true,
    },
    {
      name: "Azure DevOps, as written",
      a: "https://dev.azure.com/1234/myproj/_git/myrepo",
      b: "https://dev.azure.com/1234/myproj/_git/myrepo",
      same: true,
    },
    { name: "https and scp-like", a: "https://github.com/o/r", b: "git@github.com:o/r", same: false },
    { name: "http and https", a: "http://github.com/o/r", b: "https://github.com/o/r", same: false },
    { name: "with and without a trailing slash", a: "https://github.com/o/r", b: "https://github.com/o/r/", same: false },
    { name: "with and without a port", a: "https://github.com/o/r", b: "https://github.com:443/o/r", same: false },
    { name: "two invalid URLs written alike", a: "https://github.com:port/o/r", b: "https://github.com:port/o/r", same: true },
    { name: "two empty URLs", a: "", b: "", same: false },
  ])("$name: $same", ({ a, b, same }) => {
    expect(sameGitURL(a, b)).toBe(same);
    expect(sameGitURL(b, a)).toBe(same);
  });

  it("keeps a URL that does not parse as it was written", () => {
    expect(normalizeGitURLAllowInvalid("HTTPS://GitHub.com:port/o/r")).toBe("HTTPS://GitHub.com:port/o/r");
  });
});

describe("gitOrigin", () => {
  it.each([
    // repository URL; the scheme and host it reaches
    { url: "https://Git.Example/o/r.git", want: "https://git.example" },
    { url: "https://user:pw@git.example:8443/o/r", want: "https://git.example:8443" },
    { url: "http://127.0.0.1:3000/r.git", want: "http://127.0.0.1:3000" },
    { url: "git@git.example:o/r.git", want: "ssh://git.example" },
    { url: "ssh://git@git.example:2222/o/r", want: "ssh://git.example:2222" },
    { url: "git+ssh://git@git.example/o/r", want: "ssh://git.example" },
    { url: "git://git.example/o/r", want: "git://git.example" },
    { url: "/srv/repo", want: undefined },
    { url: "file:///srv/repo", want: undefined },
    { url: "", want: undefined },
  ])("$url reaches $want", ({ url, want }) => {
    expect(gitOrigin(url)).toBe(want);
  });

  it.each([
    { a: "https://h/o/app", b: "https://h/o/lib", same: true },
    { a: "https://h/o/app", b: "https://h:8443/o/lib", same: false },
    { a: "https://h/o/app", b: "http://h/o/lib", same: false },
    { a: "git@h:o/app", b: "ssh://git@h/o/lib", same: true },
    { a: "https://h/o/app", b: "https://evil/o/lib", same: false },
    { a: "/srv/a", b: "/srv/b", same: false },
  ])("$a and $b: same origin $same", ({ a, b, same }) => {
    expect(sameGitOrigin(a, b)).toBe(same);
  });
});
