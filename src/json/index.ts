/**
 * JSON values as the Kubernetes API carries them, shared by the ApplicationSet controller and the
 * sync engine: the `Json` type, Go-semantic equality, JSON merge patches, JSON pointers and the jq
 * path expressions of `ignoreDifferences` rules. Pure.
 */
export {
  createMergePatch,
  dropNulls,
  getPath,
  isObject,
  isZero,
  jsonEqual,
  pointerTokens,
  semanticEqual,
  setPath,
  type Json,
  type JsonObject,
} from "./json.js";
export { deletePath, jqPathTokens, jqSelectPaths, jqSupported, jqSyntaxError } from "./jq-paths.js";
