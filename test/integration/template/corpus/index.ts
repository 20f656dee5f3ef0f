// The whole corpus.
import type { CorpusCase } from "../harness.js";
import { BUILTIN_CASES } from "./builtins.js";
import { FAST_CASES } from "./fast.js";
import { LANGUAGE } from "./language.js";
import { ARGO_CASES, DEFAULT_CASES, DICT_CASES, ENCODING_CASES, LIST_CASES, MATH_CASES, MISC_CASES, STRING_CASES } from "./sprig.js";

export const CORPUS: CorpusCase[] = [
  ...LANGUAGE,
  ...BUILTIN_CASES,
  ...FAST_CASES,
  ...STRING_CASES,
  ...LIST_CASES,
  ...DICT_CASES,
  ...MATH_CASES,
  ...DEFAULT_CASES,
  ...ENCODING_CASES,
  ...MISC_CASES,
  ...ARGO_CASES,
];
