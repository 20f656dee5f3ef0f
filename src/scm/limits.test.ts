import { describe, expect, it } from "vitest";
import {
  DEFAULT_SCM_LIMITS,
  PageWalk,
  resolveScmLimits,
  rewrapLimit,
  ScmCrossOriginPageError,
  ScmPageLimitError,
  ScmResponseTooLargeError,
} from "./limits.js";
import { ScmApiError } from "./types.js";

const first = "https://git.example:8443/api/v4/groups/g/projects?per_page=100";

describe("following a listing's next pages", () => {
  it.each([
    // name; the next link; the URL requested next, or undefined when it is refused
    {
      name: "a relative link resolves against the page",
      link: "/api/v4/groups/g/projects?page=2",
      want: "https://git.example:8443/api/v4/groups/g/projects?page=2",
    },
    {
      name: "an absolute link on the same origin is followed",
      link: "https://git.example:8443/api/v4/x?page=2",
      want: "https://git.example:8443/api/v4/x?page=2",
    },
    { name: "another host is refused", link: "https://evil.example:8443/api/v4/x?page=2", want: undefined },
    { name: "another port is refused", link: "https://git.example:9443/api/v4/x?page=2", want: undefined },
    { name: "the default port is another port", link: "https://git.example/api/v4/x?page=2", want: undefined },
    { name: "another scheme is refused", link: "http://git.example:8443/api/v4/x?page=2", want: undefined },
    { name: "a scheme-relative link to another host is refused", link: "//evil.example/x", want: undefined },
  ])("$name", ({ link, want }) => {
    const walk = new PageWalk(first, 10);
    if (want === undefined) expect(() => walk.next(link, first)).toThrow(ScmCrossOriginPageError);
    else expect(walk.next(link, first)).toBe(want);
  });

  it("names both origins when it refuses a page", () => {
    expect(() => new PageWalk(first, 10).next("http://127.0.0.1:1/steal", first)).toThrow(
      "listing https://git.example:8443/api/v4/groups/g/projects names its next page on another origin (http://127.0.0.1:1); it is not followed, so the credentials stay with https://git.example:8443",
    );
  });

  it("counts pages up to the limit and fails on the next one", () => {
    const walk = new PageWalk(first, 3);
    for (let i = 0; i < 3; i++) walk.count();
    expect(() => walk.count()).toThrow(
      new ScmPageLimitError(
        first,
        3,
        "listing https://git.example:8443/api/v4/groups/g/projects has more than 3 pages; raise --scm-max-pages to follow more",
      ),
    );
  });
});

describe("the limits' settings and wrapping", () => {
  it.each([
    // name; partial settings; resolved limits
    { name: "nothing set takes the defaults", given: undefined, want: DEFAULT_SCM_LIMITS },
    { name: "a set value is kept", given: { maxPages: 5 }, want: { maxResponseBytes: 10 * 1024 * 1024, maxPages: 5 } },
    { name: "zero or less takes the default", given: { maxResponseBytes: 0, maxPages: -1 }, want: DEFAULT_SCM_LIMITS },
  ])("$name", ({ given, want }) => {
    expect(resolveScmLimits(given)).toEqual(want);
  });

  it.each([
    // name; the error; whether it keeps its type under Argo CD's prefix
    { name: "an answer too large", err: new ScmResponseTooLargeError({ source: "s", url: "https://a/b", limitBytes: 1, setting: "--s" }) },
    { name: "too many pages", err: new ScmPageLimitError("https://a/b", 2) },
    { name: "a page on another origin", err: new ScmCrossOriginPageError("https://a/b", "https://c/d") },
  ])("$name keeps its type and status 0 when wrapped", ({ err }) => {
    const wrapped = rewrapLimit("error listing repos", err);
    expect(wrapped).toBeInstanceOf(err.constructor);
    expect(wrapped).toBeInstanceOf(ScmApiError);
    expect(wrapped?.status).toBe(0);
    expect(wrapped?.message).toBe(`error listing repos: ${err.message}`);
  });

  it("leaves other errors to the caller", () => {
    expect(rewrapLimit("p", new Error("x"))).toBeUndefined();
  });
});
