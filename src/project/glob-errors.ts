/**
 * The compile error Argo CD's glob library reports for a malformed pattern, for the messages that
 * carry it: an unclosed class (`unexpected end of input`), a trailing backslash (`trailing
 * backslash`) or an unclosed alternative (``unclosed `{` ``), each at the pattern's byte length.
 * Pure core: facts from gobwas/glob v1.0.0, the glob library of Argo CD v3.6.2.
 */
import { globSource } from "../glob/glob.js";

interface Scan {
  inClass: boolean;
  escaped: boolean;
  depth: number;
}

/** Moves the scan over one character. */
function step(scan: Scan, c: string): void {
  if (scan.escaped) scan.escaped = false;
  else if (c === "\\") scan.escaped = true;
  else if (scan.inClass) scan.inClass = c !== "]";
  else if (c === "[") scan.inClass = true;
  else if (c === "{") scan.depth++;
  else if (c === "}" && scan.depth > 0) scan.depth--;
}

/** The reason a malformed pattern fails, as the library words it. */
function reason(pattern: string): string {
  const scan: Scan = { inClass: false, escaped: false, depth: 0 };
  for (const c of pattern) step(scan, c);
  if (scan.inClass) return "unexpected end of input";
  if (scan.escaped) return "trailing backslash";
  if (scan.depth > 0) return "unclosed `{`";
  return "could not parse pattern";
}

/** The library's error text for `pattern` (`glob: syntax error at <offset>: <reason>`), or undefined when it compiles. */
export function globSyntaxError(pattern: string): string | undefined {
  if (globSource(pattern) !== undefined) return undefined;
  return `glob: syntax error at ${String(Buffer.byteLength(pattern, "utf8"))}: ${reason(pattern)}`;
}
