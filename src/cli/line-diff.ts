/**
 * A unified diff of two texts, line by line, as `diff -u` prints it: hunks of changed lines with
 * three lines of context. The common lines are a longest common subsequence found in linear space
 * (Hirschberg's divide and conquer on the lines left once the common head and tail are set aside);
 * past {@link MAX_CELLS} comparisons the differing middle is shown as wholly replaced. Pure.
 */

/** Comparisons of lines the search spends at most (the product of the middles' lengths). */
export const MAX_CELLS = 4_000_000;
/** Lines of context around a change. */
const CONTEXT = 3;

/** One line of the edit script: kept (" "), removed ("-") or added ("+"). */
interface Edit {
  readonly op: " " | "-" | "+";
  readonly line: string;
}

/** The lines of a text; a final newline ends the last line rather than starting an empty one. */
export function linesOf(text: string): string[] {
  if (text === "") return [];
  const lines = text.split("\n");
  if (lines[lines.length - 1] === "") lines.pop();
  return lines;
}

/** LCS lengths of `a` against every prefix of `b` (forward), in one row. */
function lcsRow(a: readonly string[], b: readonly string[]): number[] {
  let prev = new Array<number>(b.length + 1).fill(0);
  for (const x of a) {
    const cur = new Array<number>(b.length + 1).fill(0);
    for (let j = 1; j <= b.length; j++) cur[j] = x === b[j - 1] ? prev[j - 1]! + 1 : Math.max(prev[j]!, cur[j - 1]!);
    prev = cur;
  }
  return prev;
}

/** Hirschberg's algorithm: the edit script of `a` into `b` through a longest common subsequence. */
function hirschberg(a: readonly string[], b: readonly string[], out: Edit[]): void {
  if (a.length === 0) {
    for (const line of b) out.push({ op: "+", line });
    return;
  }
  if (b.length === 0) {
    for (const line of a) out.push({ op: "-", line });
    return;
  }
  if (a.length === 1) {
    const at = b.indexOf(a[0]!);
    if (at < 0) {
      out.push({ op: "-", line: a[0]! });
      for (const line of b) out.push({ op: "+", line });
      return;
    }
    for (const line of b.slice(0, at)) out.push({ op: "+", line });
    out.push({ op: " ", line: a[0]! });
    for (const line of b.slice(at + 1)) out.push({ op: "+", line });
    return;
  }
  const mid = a.length >> 1;
  const left = lcsRow(a.slice(0, mid), b);
  const right = lcsRow([...a.slice(mid)].reverse(), [...b].reverse());
  let split = 0;
  let best = -1;
  for (let j = 0; j <= b.length; j++) {
    const score = left[j]! + right[b.length - j]!;
    if (score > best) [best, split] = [score, j];
  }
  hirschberg(a.slice(0, mid), b.slice(0, split), out);
  hirschberg(a.slice(mid), b.slice(split), out);
}

/** The edit script of `a` into `b`: the common head and tail kept, the middle searched within the limit. */
export function editScript(a: readonly string[], b: readonly string[], maxCells = MAX_CELLS): Edit[] {
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const out: Edit[] = a.slice(0, head).map((line) => ({ op: " ", line }));
  const [midA, midB] = [a.slice(head, a.length - tail), b.slice(head, b.length - tail)];
  if (midA.length * midB.length > maxCells) {
    for (const line of midA) out.push({ op: "-", line });
    for (const line of midB) out.push({ op: "+", line });
  } else hirschberg(midA, midB, out);
  for (const line of a.slice(a.length - tail)) out.push({ op: " ", line });
  return out;
}

/** A hunk's range in `diff -u`'s form: `start,count`, the start one before the first line when empty. */
const range = (start: number, count: number): string => `${String(count === 0 ? start : start + 1)},${String(count)}`;

/**
 * The hunks of a unified diff of `oldText` into `newText` (no `---`/`+++` header), "" when the
 * texts are equal. Each hunk is `@@ -l,s +l,s @@` and its lines, every line ending in a newline.
 */
export function unifiedHunks(oldText: string, newText: string, maxCells = MAX_CELLS): string {
  const edits = editScript(linesOf(oldText), linesOf(newText), maxCells);
  const changed = edits.flatMap((e, i) => (e.op === " " ? [] : [i]));
  let out = "";
  let k = 0;
  while (k < changed.length) {
    // A hunk takes the changes whose context windows touch.
    let last = k;
    while (last + 1 < changed.length && changed[last + 1]! - changed[last]! <= 2 * CONTEXT) last++;
    const from = Math.max(0, changed[k]! - CONTEXT);
    const to = Math.min(edits.length, changed[last]! + CONTEXT + 1);
    const before = edits.slice(0, from);
    const oldStart = before.filter((e) => e.op !== "+").length;
    const newStart = before.filter((e) => e.op !== "-").length;
    const body = edits.slice(from, to);
    const oldCount = body.filter((e) => e.op !== "+").length;
    const newCount = body.filter((e) => e.op !== "-").length;
    out += `@@ -${range(oldStart, oldCount)} +${range(newStart, newCount)} @@\n`;
    out += body.map((e) => `${e.op}${e.line}\n`).join("");
    k = last + 1;
  }
  return out;
}
