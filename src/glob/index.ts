/**
 * Argo CD's pattern dialects: globs (`glob.Match`) and pattern lists (`glob.MatchStringInList`).
 * Pure: no I/O.
 */
export { globMatch, globSource } from "./glob.js";
export { matchStringInList, patternListMatcher } from "./list.js";
