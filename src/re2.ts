/**
 * RE2JS, the linear-time regular expressions of globs, SCM filters and the template's regex
 * functions, loaded on the first compile: its module builds Unicode tables that cost about 3 MiB,
 * which an installation using none of these never needs (docs/controller.md#memory-at-start). A
 * lint rule keeps other imports of `re2js` out of src.
 */
import { createRequire } from "node:module";
import type * as Re2 from "re2js";

let engine: typeof Re2.RE2JS | undefined;

/** `RE2JS.compile(source)`; throws RE2JS's syntax errors. */
export function compileRe2js(source: string): Re2.RE2JS {
  engine ??= (createRequire(import.meta.url)("re2js") as typeof Re2).RE2JS;
  return engine.compile(source);
}
