/**
 * Reads the examples of a documentation page: every fenced code block and every table, each with
 * the `<!-- example: KIND ARGS -->` marker written right before it (blank lines may separate them).
 * Pure: Markdown text in, a list of parts out. The marker convention is described in
 * docs/README.md ("How the examples are tested").
 */

/** A marker: `<!-- example: run fails -->` is `{ kind: "run", args: ["fails"] }`. */
export interface Marker {
  readonly kind: string;
  readonly args: readonly string[];
}

/** A fenced code block. */
export interface FencedBlock {
  readonly type: "code";
  /** The info string's first word (`yaml`, `sh`, `text`, or "" for none). */
  readonly lang: string;
  readonly text: string;
  /** 1-based line of the opening fence. */
  readonly line: number;
  readonly marker?: Marker;
}

/** A Markdown table: its body rows, each a list of cells (trimmed, `\|` unescaped). */
export interface TableBlock {
  readonly type: "table";
  readonly header: readonly string[];
  readonly rows: ReadonlyArray<readonly string[]>;
  readonly line: number;
  readonly marker?: Marker;
}

/** One part of a page that a marker can describe. */
export type DocPart = FencedBlock | TableBlock;

const MARKER = /^<!--\s*example:\s*(.*?)\s*-->$/;

/** Parses the text of a marker comment, or undefined when the line is no marker. */
export function parseMarker(line: string): Marker | undefined {
  const m = MARKER.exec(line.trim());
  if (m === null) return undefined;
  const words = (m[1] ?? "").split(/\s+/).filter((w) => w !== "");
  const [kind, ...args] = words;
  if (kind === undefined) throw new Error(`empty example marker: ${line}`);
  return { kind, args };
}

/** Splits a table row into cells: `|` separates, `\|` is a literal bar (also inside code spans). */
export function tableCells(row: string): string[] {
  const inner = row.trim().replace(/^\|/, "").replace(/\|$/, "");
  const cells: string[] = [];
  let cell = "";
  for (let i = 0; i < inner.length; i++) {
    const ch = inner[i]!;
    if (ch === "\\" && inner[i + 1] === "|") {
      cell += "|";
      i++;
    } else if (ch === "|") {
      cells.push(cell.trim());
      cell = "";
    } else {
      cell += ch;
    }
  }
  cells.push(cell.trim());
  return cells;
}

/** Reads a table starting at `lines[i]`; returns it and the index of the line after it. */
function readTable(lines: readonly string[], i: number, marker: Marker | undefined): { part: TableBlock; next: number } {
  const header = tableCells(lines[i]!);
  let j = i + 2;
  const rows: string[][] = [];
  while (j < lines.length && lines[j]!.trim().startsWith("|")) rows.push(tableCells(lines[j++]!));
  return { part: { type: "table", header, rows, line: i + 1, ...(marker ? { marker } : {}) }, next: j };
}

/** Reads a fenced block opening at `lines[i]` (indented inside a list item or not); returns it and the index of the line after it. */
function readFence(lines: readonly string[], i: number, marker: Marker | undefined): { part: FencedBlock; next: number } {
  const open = /^(\s*)(`{3,})\s*([\w-]*)/.exec(lines[i]!)!;
  const [indent, fence] = [open[1]!, open[2]!];
  let j = i + 1;
  while (j < lines.length && lines[j]!.trim() !== fence) j++;
  if (j >= lines.length) throw new Error(`line ${String(i + 1)}: code block is not closed`);
  const body = lines.slice(i + 1, j).map((l) => (l.startsWith(indent) ? l.slice(indent.length) : l.trimStart()));
  const text = body.join("\n") + (body.length > 0 ? "\n" : "");
  return { part: { type: "code", lang: open[3] ?? "", text, line: i + 1, ...(marker ? { marker } : {}) }, next: j + 1 };
}

/**
 * Every fenced block and table of `markdown`, in order, each with the marker written before it. A
 * marker followed by anything but blank lines and then a block or table is an error.
 */
export function docParts(markdown: string): DocPart[] {
  const lines = markdown.split("\n");
  const parts: DocPart[] = [];
  let pending: { marker: Marker; line: number } | undefined;
  for (let i = 0; i < lines.length;) {
    const line = lines[i]!;
    const marker = parseMarker(line);
    if (marker !== undefined) {
      if (pending !== undefined) throw new Error(`line ${String(pending.line)}: example marker is not followed by a code block or table`);
      pending = { marker, line: i + 1 };
      i++;
      continue;
    }
    if (line.trim() === "") {
      i++;
      continue;
    }
    const read = /^\s*`{3,}/.test(line)
      ? readFence(lines, i, pending?.marker)
      : line.trim().startsWith("|")
        ? readTable(lines, i, pending?.marker)
        : undefined;
    if (read === undefined && pending !== undefined)
      throw new Error(`line ${String(pending.line)}: example marker is not followed by a code block or table`);
    if (read !== undefined) parts.push(read.part);
    pending = undefined;
    i = read?.next ?? i + 1;
  }
  if (pending !== undefined) throw new Error(`line ${String(pending.line)}: example marker at the end of the page`);
  return parts;
}

/** Languages whose blocks must carry a marker: examples a reader would run or apply. */
export const MARKED_LANGUAGES: ReadonlySet<string> = new Set(["yaml", "yml", "json", "sh", "bash", "shell", "console"]);
