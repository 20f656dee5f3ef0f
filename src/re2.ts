/**
 * RE2JS, the linear-time regular expressions of globs, SCM filters and the template's regex
 * functions, loaded on the first compile: a 257 KiB module (about 0.8 MiB of resident memory in the
 * controller) that an installation using none of these never needs
 * (docs/controller.md#memory-at-start). A lint rule keeps other imports of `re2js` out of src.
 */
import type * as Re2 from "re2js";
import { onFirstUse } from "./first-use.js";

const re2js = onFirstUse<typeof Re2>("re2js");

/** `RE2JS.compile(source)`; throws RE2JS's syntax errors. */
export function compileRe2js(source: string): Re2.RE2JS {
  return re2js().RE2JS.compile(source);
}
