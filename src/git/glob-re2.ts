/**
 * What the Git generator's glob dialects share: the bad-pattern error and the step from a
 * translated source to an RE2 expression (re2js), which matches in time linear in the path
 * whatever the pattern. Pure.
 */
import { RE2JS } from "re2js";

/** A malformed pattern (Go's `path.ErrBadPattern`), or one refused (`detail` says why). */
export class BadPatternError extends Error {
  constructor(
    readonly pattern: string,
    readonly detail?: string,
  ) {
    super(detail === undefined ? "syntax error in pattern" : `syntax error in pattern: ${detail}`);
    this.name = "BadPatternError";
  }
}

const RE_SPECIAL = /[\\^$.*+?()[\]{}|/-]/;

/** One character as an RE2 literal, inside or outside a class. */
export function reLiteral(c: string): string {
  return RE_SPECIAL.test(c) ? `\\${c}` : c;
}

/** RE2 of a translated source; a source RE2 refuses is a bad pattern. */
export function compileRe2(pattern: string, source: string): RE2JS {
  try {
    return RE2JS.compile(source);
  } catch (err) {
    throw new BadPatternError(pattern, err instanceof Error ? err.message : String(err));
  }
}
