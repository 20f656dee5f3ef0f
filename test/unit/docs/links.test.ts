/**
 * References into the documentation hold: every `docs/<page>.md#<anchor>` named in a comment or a test
 * under src/, test/ or bench/, and every link between the pages of docs/, names a page that exists
 * and a heading it has. Anchors are GitHub's: the heading in lower case, punctuation dropped,
 * blanks turned into hyphens, `-1`, `-2`, ... added to repeats.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, normalize } from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT } from "../deploy/kustomize.js";

/** GitHub's anchor of a heading's text. */
export function headingAnchor(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/\s/g, "-");
}

/** The anchors of a Markdown page's headings (code blocks left out). */
function anchorsOf(text: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let fenced = false;
  for (const line of text.split("\n")) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    const m = fenced ? null : /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (m === null) continue;
    const base = headingAnchor(m[1]!);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${String(n)}`);
  }
  return anchors;
}

function filesUnder(dir: string, ext: RegExp): string[] {
  if (!existsSync(join(REPO_ROOT, dir))) return [];
  return readdirSync(join(REPO_ROOT, dir), { withFileTypes: true }).flatMap((e) => {
    const path = `${dir}/${e.name}`;
    if (e.isDirectory()) return e.name === "node_modules" ? [] : filesUnder(path, ext);
    return ext.test(e.name) ? [path] : [];
  });
}

interface Reference {
  /** Where the reference is written. */
  readonly from: string;
  /** The page, relative to the repository root. */
  readonly page: string;
  readonly anchor: string | undefined;
}

/** `docs/<page>.md` and `docs/<page>.md#<anchor>` in the code, the tests and the benchmarks. */
function codeReferences(): Reference[] {
  return ["src", "test", "bench"].flatMap((dir) =>
    filesUnder(dir, /\.(ts|ya?ml)$/).flatMap((from) =>
      [...readFileSync(join(REPO_ROOT, from), "utf8").matchAll(/\bdocs\/([\w./-]+\.md)(?:#([\w-]+))?/g)].map((m) => ({
        from,
        page: `docs/${m[1]!}`,
        anchor: m[2],
      })),
    ),
  );
}

/** Relative links between the pages of docs/ (`(page.md#anchor)`, `(#anchor)`), code blocks left out. */
function pageReferences(): Reference[] {
  return filesUnder("docs", /\.md$/).flatMap((from) => {
    const text = readFileSync(join(REPO_ROOT, from), "utf8").replace(/^```[\s\S]*?^```/gm, "");
    return [...text.matchAll(/\]\(((?:[\w./-]+\.md)?)(?:#([\w-]+))?\)/g)]
      .filter((m) => m[1] !== "" || m[2] !== undefined)
      .map((m) => ({ from, page: m[1] === "" ? from : normalize(join(dirname(from), m[1]!)), anchor: m[2] }));
  });
}

/** The references that name a missing page or heading, as `from → page#anchor`. */
function broken(refs: readonly Reference[]): string[] {
  const anchors = new Map<string, Set<string> | undefined>();
  const anchorsFor = (page: string): Set<string> | undefined => {
    if (!anchors.has(page)) {
      const path = join(REPO_ROOT, page);
      anchors.set(page, existsSync(path) ? anchorsOf(readFileSync(path, "utf8")) : undefined);
    }
    return anchors.get(page);
  };
  return refs
    .filter((r) => {
      const found = anchorsFor(r.page);
      return found === undefined || (r.anchor !== undefined && !found.has(r.anchor));
    })
    .map((r) => `${r.from} → ${r.page}${r.anchor === undefined ? "" : `#${r.anchor}`}`);
}

describe("headingAnchor", () => {
  it.each([
    // name; the heading's text; GitHub's anchor
    { name: "words", heading: "Reverse deletion", anchor: "reverse-deletion" },
    { name: "an apostrophe and a colon", heading: "Git: the controller's files", anchor: "git-the-controllers-files" },
    { name: "code and parentheses", heading: "`appset rollout plan` (seed)", anchor: "appset-rollout-plan-seed" },
    { name: "a comma and a hyphen", heading: "Decisions (where we differ, or not)-x", anchor: "decisions-where-we-differ-or-not-x" },
  ])("reads $name", ({ heading, anchor }) => {
    expect(headingAnchor(heading)).toBe(anchor);
  });

  it("numbers repeated headings as GitHub does", () => {
    expect([...anchorsOf("# A\n## B\n```\n## C\n```\n### B\n")]).toEqual(["a", "b", "b-1"]);
  });
});

describe("references into docs/", () => {
  it("from the code, the tests and the benchmarks name pages and headings that exist", () => {
    const refs = codeReferences();
    expect(refs.filter((r) => r.anchor !== undefined).length).toBeGreaterThan(50);
    expect(broken(refs)).toEqual([]);
  });

  it("between the pages name pages and headings that exist", () => {
    const refs = pageReferences();
    expect(refs.length).toBeGreaterThan(20);
    expect(broken(refs)).toEqual([]);
  });
});
