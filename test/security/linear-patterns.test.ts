/**
 * A tenant who may create an ApplicationSet writes the patterns the controller matches: Git
 * generator `directories`/`files` globs, matched against every path of a repository, and a
 * templated `repoURL`, matched by the webhook against every pushed repository URL. Tried as an
 * attacker would: patterns crafted to make a backtracking matcher retry exponentially many ways
 * against 200-character paths and URLs, through the real generator (real git) and the real webhook
 * receiver. Each must complete with the right answer; the times are in bench/linear-patterns.ts.
 * (Plain tests: they need no control plane, and run in the security suite with the others.)
 */
import { afterAll, describe, expect, it } from "vitest";
import type { ApplicationSet, GitGenerator } from "../../src/api/index.js";
import { gitGenerator } from "../../src/generators/git.js";
import { affectedGenerator } from "../../src/webhook/match.js";
import { receive } from "../../src/webhook/receive.js";
import type { WebhookEvent } from "../../src/webhook/types.js";
import { appSet, context } from "../unit/generators/builders.js";
import { gitReader, makeRepo, TempDirs } from "../integration/support/git-repos.js";
import { signedFixture, TEST_SECRETS } from "../support/webhook-payloads.js";

/** A pattern of many stars between literals: exponential work for a backtracking matcher that fails. */
const STARS = `${"*a".repeat(12)}*b`;
const NEAR_MISS = "a".repeat(200);
const HIT = `${"a".repeat(199)}b`;
const DEEP = `${"a/".repeat(99)}aa`;

const temp = new TempDirs();
afterAll(() => temp.cleanup());

const repo = makeRepo(temp, {
  [`${NEAR_MISS}/config.json`]: '{"name":"near-miss"}',
  [`${HIT}/config.json`]: '{"name":"hit"}',
  [`${DEEP}/config.json`]: '{"name":"deep"}',
});
const reader = gitReader(temp);

async function generatedPaths(spec: Partial<GitGenerator>, newGitFileGlobbing = false): Promise<string[]> {
  const out = await gitGenerator.generate(
    { repoURL: repo, revision: "HEAD", ...spec },
    appSet([]),
    context({ git: reader }, { newGitFileGlobbing }),
  );
  return out.map((p) => String(p["path"]));
}

describe("a tenant's crafted Git generator glob against 200-character paths", () => {
  it.each([
    // name: the attack; spec: the generator's rules; globbing: new file globbing on; want: the paths generated
    { name: "a directory rule of many stars", spec: { directories: [{ path: STARS }] }, globbing: false, want: [HIT] },
    {
      name: "a directory rule of many stars that only nearly matches",
      spec: { directories: [{ path: `${STARS}c` }] },
      globbing: false,
      want: [],
    },
    {
      name: "a pathspec file rule of many stars (a star crosses directories)",
      spec: { files: [{ path: `${STARS}/config.json` }] },
      globbing: false,
      want: [HIT],
    },
    {
      name: "a doublestar file rule of many ** segments and stars",
      spec: { files: [{ path: `${"**/a/".repeat(20)}**/*a*a*/config.json` }] },
      globbing: true,
      want: [DEEP],
    },
    {
      name: "a doublestar rule whose braces would expand past the cap is skipped as malformed",
      spec: { files: [{ path: `${"{a,b}".repeat(16)}/config.json` }, { path: `${HIT}/config.json` }] },
      globbing: true,
      want: [HIT],
    },
  ])("$name completes with the right paths", async ({ spec, globbing, want }) => {
    expect(await generatedPaths(spec, globbing)).toEqual(want);
  });
});

/** The attacker's ApplicationSet: one Git generator of `repoURL`. */
const appSetOf = (repoURL: string): ApplicationSet => appSet([{ git: { repoURL, revision: "HEAD", directories: [{ path: "*" }] } }]);

/** A signed GitHub push of a repository whose name is 200 characters long. */
function pushOfLongRepository(): WebhookEvent {
  const name = "x".repeat(200);
  const request = signedFixture("github-push", (p) => {
    const r = p["repository"] as Record<string, unknown>;
    r["name"] = name;
    r["html_url"] = `https://github.com/acme/${name}`;
    r["clone_url"] = `https://github.com/acme/${name}.git`;
    r["ssh_url"] = `git@github.com:acme/${name}.git`;
    r["git_url"] = `git://github.com/acme/${name}.git`;
  });
  const v = receive({ method: "POST", ...request }, TEST_SECRETS);
  if (!v.ok) throw new Error(v.message);
  return v.event;
}

describe("a tenant's crafted templated repoURL against a pushed 200-character URL", () => {
  const push = pushOfLongRepository();
  it.each([
    // name: the attack; repoURL: the generator's value; hit: whether the push refreshes it
    {
      name: "many holes between literals that never end the URL",
      repoURL: `https://github.com/acme/${"{{.a}}x".repeat(30)}{{.a}}y`,
      hit: false,
    },
    { name: "many holes between literals that match", repoURL: `https://github.com/acme/${"{{.a}}x".repeat(30)}{{.a}}`, hit: true },
    { name: "a run of unclosed {{ that holes nothing", repoURL: `https://github.com/acme/${"{{".repeat(50_000)}`, hit: false },
    { name: "a run of slashes before the path", repoURL: `https://github.com/${"/".repeat(50_000)}acme/{{.r}}`, hit: true },
  ])("$name completes with the right answer", ({ repoURL, hit }) => {
    expect(affectedGenerator(appSetOf(repoURL), push)).toBe(hit ? "generators[0].git" : undefined);
  });
});
