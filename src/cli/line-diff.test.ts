import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { linesOf, unifiedHunks } from "./line-diff.js";

/** Applies unified hunks to `oldText`, checking every context and removed line. */
function applyHunks(oldText: string, hunks: string): string {
  const old = linesOf(oldText);
  const out: string[] = [];
  let at = 0;
  const lines = linesOf(hunks);
  for (let i = 0; i < lines.length;) {
    const m = /^@@ -(\d+),(\d+) \+\d+,\d+ @@$/.exec(lines[i]!);
    if (m === null) throw new Error(`not a hunk header: ${lines[i]!}`);
    const start = Number(m[2]) === 0 ? Number(m[1]) : Number(m[1]) - 1;
    out.push(...old.slice(at, start));
    at = start;
    for (i++; i < lines.length && !lines[i]!.startsWith("@@"); i++) {
      const [op, line] = [lines[i]![0], lines[i]!.slice(1)];
      if (op !== "+") {
        if (old[at] !== line) throw new Error(`line ${String(at + 1)} is not ${line}`);
        at++;
      }
      if (op !== "-") out.push(line);
    }
  }
  out.push(...old.slice(at));
  return out.map((l) => `${l}\n`).join("");
}

const text = (...lines: string[]): string => lines.map((l) => `${l}\n`).join("");

describe("unifiedHunks", () => {
  it.each([
    { name: "equal texts", old: text("a", "b"), new: text("a", "b"), want: "" },
    { name: "both empty", old: "", new: "", want: "" },
    { name: "everything added", old: "", new: text("a", "b"), want: "@@ -0,0 +1,2 @@\n+a\n+b\n" },
    { name: "everything removed", old: text("a"), new: "", want: "@@ -1,1 +0,0 @@\n-a\n" },
    { name: "one line changed", old: text("a", "b", "c"), new: text("a", "x", "c"), want: "@@ -1,3 +1,3 @@\n a\n-b\n+x\n c\n" },
    {
      name: "context is three lines",
      old: text("1", "2", "3", "4", "5", "6", "7", "8", "9"),
      new: text("1", "2", "3", "4", "five", "6", "7", "8", "9"),
      want: "@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+five\n 6\n 7\n 8\n",
    },
    {
      name: "changes far apart make two hunks",
      old: text("a", "1", "2", "3", "4", "5", "6", "7", "b"),
      new: text("A", "1", "2", "3", "4", "5", "6", "7", "B"),
      want: "@@ -1,4 +1,4 @@\n-a\n+A\n 1\n 2\n 3\n@@ -6,4 +6,4 @@\n 5\n 6\n 7\n-b\n+B\n",
    },
    { name: "a line inserted", old: text("a", "c"), new: text("a", "b", "c"), want: "@@ -1,2 +1,3 @@\n a\n+b\n c\n" },
  ])("$name", (c) => {
    expect(unifiedHunks(c.old, c.new)).toBe(c.want);
  });

  it("past the limit shows the differing middle replaced, still a correct diff", () => {
    const [old, neu] = [text("h", "a", "b", "c", "t"), text("h", "b", "c", "d", "t")];
    const hunks = unifiedHunks(old, neu, 1);
    expect(hunks).toBe("@@ -1,5 +1,5 @@\n h\n-a\n-b\n-c\n+b\n+c\n+d\n t\n");
    expect(applyHunks(old, hunks)).toBe(neu);
  });

  it("applying the hunks to the old text gives the new text; equal texts give none", () => {
    const lines = fc.array(fc.constantFrom("a", "b", "c", "d", "  e: 1", ""), { maxLength: 30 });
    fc.assert(
      fc.property(lines, lines, (a, b) => {
        const [oldText, newText] = [text(...a), text(...b)];
        const hunks = unifiedHunks(oldText, newText);
        expect(applyHunks(oldText, hunks)).toBe(newText);
        expect(hunks === "").toBe(oldText === newText);
      }),
    );
  });

  it("keeps a longest common subsequence: no line both removed and added when it could stay", () => {
    const hunks = unifiedHunks(text("x", "a", "b", "c", "y"), text("a", "b", "z", "c"));
    expect(hunks.split("\n").filter((l) => l.startsWith(" "))).toEqual([" a", " b", " c"]);
  });
});
