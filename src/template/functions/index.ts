/**
 * The function map Argo CD gives goTemplate: Sprig v3's generic functions without env, expandenv
 * and getHostByName, plus normalize, slugify, toYaml, fromYaml, fromYamlArray and tpl.
 */
import type { FuncMap } from "../go/types.js";
import { ARGO_FUNCS } from "./argo.js";
import { CRYPTO_FUNCS } from "./crypto.js";
import { DATE_FUNCS } from "./dates.js";
import { DICT_FUNCS } from "./dicts.js";
import { ENCODING_FUNCS } from "./encoding.js";
import { LIST_FUNCS } from "./lists.js";
import { MATH_FUNCS } from "./math.js";
import { REFLECT_FUNCS } from "./reflect.js";
import { REGEX_FUNCS } from "./regex.js";
import { SEMVER_FUNCS } from "./semver.js";
import { STRING_FUNCS } from "./strings.js";
import { TPL_FUNCS } from "./tpl.js";

/** Every function available to goTemplate templates (builtins are added by the engine). */
export const ARGO_FUNC_MAP: FuncMap = Object.freeze({
  ...STRING_FUNCS,
  ...LIST_FUNCS,
  ...DICT_FUNCS,
  ...MATH_FUNCS,
  ...ENCODING_FUNCS,
  ...REFLECT_FUNCS,
  ...REGEX_FUNCS,
  ...CRYPTO_FUNCS,
  ...DATE_FUNCS,
  ...SEMVER_FUNCS,
  ...ARGO_FUNCS,
  ...TPL_FUNCS,
});
