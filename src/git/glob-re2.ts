/**
 * What the Git generator's glob dialects share: the bad-pattern error and the step from a
 * translated source to an RE2 expression (re2js), which matches in time linear in the path
 * whatever the pattern. Pure.
 */
import type { RE2JS } from "re2js";
import { compileRe2js } from "../re2.js";
import { remember } from "../bounded-map.js";

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

/** How many compiled expressions are kept (a generator's rules compile again at every run). */
const CACHE_SIZE = 1_000;
const compiled = new Map<string, RE2JS>();

/**
 * RE2 of a translated source, memoised (compiling takes time linear in the source, but with a
 * large constant: about 0.15 ms a character); a source RE2 refuses is a bad pattern.
 */
export function compileRe2(pattern: string, source: string): RE2JS {
  const hit = compiled.get(source);
  if (hit !== undefined) return hit;
  let re: RE2JS;
  try {
    re = compileRe2js(source);
  } catch (err) {
    throw new BadPatternError(pattern, err instanceof Error ? err.message : String(err));
  }
  remember(compiled, source, re, CACHE_SIZE);
  return re;
}
