// The templated repoURL matcher without backtracking: `{{…}}` holes are found in one pass and the
// literal parts compile to RE2, with the answers of the RegExp versions they replace.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { holeTemplates, repoHostPath, repoURLMatches } from "./repourl.js";

describe("finding the {{…}} holes of a templated value", () => {
  it("finds what the lazy RegExp found", () => {
    const text = fc.array(fc.constantFrom("{", "}", "{{", "}}", "a", ".", "\n", "\r"), { maxLength: 14 }).map((t) => t.join(""));
    fc.assert(fc.property(text, (t) => holeTemplates(t) === t.replace(/\{\{.*?\}\}/g, "\u0000")));
  });

  it("reads a long run of {{ without a closing }} in one pass", () => {
    const value = `https://github.com/acme/${"{{".repeat(100_000)}`;
    expect(holeTemplates(value)).toBe(value);
  });
});

/** The former matcher of a templated value (backtracking RegExps): the oracle. */
function oldTemplatedMatch(value: string, url: string): boolean {
  const hole = (t: string): RegExp =>
    new RegExp(
      `^${t
        .split("\u0000")
        .map((s) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))
        .join(".*")}$`,
      "s",
    );
  const holed = value.replace(/\{\{.*?\}\}/g, "\u0000").toLowerCase();
  const normalized = repoHostPath(holed);
  return hole(holed).test(url.trim().toLowerCase()) || (normalized !== undefined && hole(normalized).test(repoHostPath(url) ?? ""));
}

describe("templated repoURLs against pushed URLs", () => {
  it("match as the backtracking RegExps did", () => {
    const piece = fc.constantFrom("{{.a}}", "{{ .b }}", "a", "b", "ab", "/", ".", ":", "@", "git@", "https://", "github.com", ".git", "\n");
    const text = fc.array(piece, { maxLength: 8 }).map((t) => t.join(""));
    const value = text.map((t) => `${t}{{.x}}`);
    fc.assert(
      fc.property(value, text, (v, u) => {
        expect(repoURLMatches(v, [u])).toBe(oldTemplatedMatch(v, u));
      }),
      { numRuns: 2000 },
    );
  }, 30_000);

  it.each([
    // name: what the row shows; repoURL: the generator's (crafted) value; url: the pushed URL; want: match or not
    {
      name: "many holes against a 200-character URL that does not match",
      repoURL: `https://github.com/${"{{.a}}x".repeat(20)}{{.a}}y`,
      url: `https://github.com/${"x".repeat(200)}`,
      want: false,
    },
    {
      name: "many holes against a 200-character URL that matches",
      repoURL: `https://github.com/${"{{.a}}x".repeat(20)}{{.a}}`,
      url: `https://github.com/${"x".repeat(200)}`,
      want: true,
    },
    {
      name: "a URL of many slashes before its path",
      repoURL: `https://github.com/acme/{{.r}}`,
      url: `https://github.com/${"/".repeat(100_000)}acme/guestbook`,
      want: true,
    },
  ])("$name", ({ repoURL, url, want }) => {
    expect(repoURLMatches(repoURL, [url])).toBe(want);
  });

  it("normalises a URL of a long run of slashes that does not end it", () => {
    expect(repoHostPath(`https://github.com/acme/${"/".repeat(100_000)}r/`)).toBe(`github.com/acme/${"/".repeat(100_000)}r`);
  });
});
