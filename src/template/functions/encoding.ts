/**
 * Sprig's encoding, JSON, default-value, path and URL functions.
 */
import { fn, GoFuncError, type FuncMap } from "../go/types.js";
import { type GoMap, type GoValue } from "../go/value.js";
import { kindName } from "../go/value.js";
import { marshal, unmarshal } from "./json.js";
import { isEmpty } from "./reflect.js";
import { trimTrailingSlashes } from "../../trim.js";

const S = (v: GoValue): string => v as string;

function b64dec(s: string): string {
  if (s.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(s)) {
    const bad = [...s].findIndex((c, i) => !/[A-Za-z0-9+/=]/.test(c) || (c === "=" && i < s.length - 2));
    return `illegal base64 data at input byte ${bad >= 0 ? bad : s.length - (s.length % 4)}`;
  }
  return Buffer.from(s, "base64").toString("utf8");
}

const B32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

function b32enc(s: string): string {
  const bytes = Buffer.from(s, "utf8");
  let out = "";
  let bits = 0;
  let value = 0;
  for (const b of bytes) {
    value = (value << 8) | b;
    bits += 8;
    while (bits >= 5) {
      out += B32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += B32[(value << (5 - bits)) & 31];
  while (out.length % 8 !== 0) out += "=";
  return out;
}

function b32dec(s: string): string {
  if (s.length % 8 !== 0 || !/^[A-Z2-7]*=*$/.test(s)) {
    const bad = [...s].findIndex((c) => !/[A-Z2-7=]/.test(c));
    return `illegal base32 data at input byte ${bad >= 0 ? bad : s.length - (s.length % 8)}`;
  }
  const body = s.replace(/=+$/, "");
  const out: number[] = [];
  let bits = 0;
  let value = 0;
  for (const c of body) {
    value = (value << 5) | B32.indexOf(c);
    bits += 5;
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 255);
      bits -= 8;
    }
  }
  return Buffer.from(out).toString("utf8");
}

/** path.Clean. */
export function pathClean(p: string): string {
  if (p === "") return ".";
  const rooted = p.startsWith("/");
  const out: string[] = [];
  for (const seg of p.split("/")) {
    if (seg === "" || seg === ".") continue;
    if (seg === "..") {
      if (out.length && out[out.length - 1] !== "..") out.pop();
      else if (!rooted) out.push("..");
    } else out.push(seg);
  }
  const r = (rooted ? "/" : "") + out.join("/");
  return r === "" ? (rooted ? "/" : ".") : r;
}

function pathBase(p: string): string {
  if (p === "") return ".";
  p = trimTrailingSlashes(p);
  const i = p.lastIndexOf("/");
  p = p.slice(i + 1);
  return p === "" ? "/" : p;
}

function pathDir(p: string): string {
  const i = p.lastIndexOf("/");
  return pathClean(p.slice(0, i + 1));
}

function pathExt(p: string): string {
  for (let i = p.length - 1; i >= 0 && p[i] !== "/"; i--) if (p[i] === ".") return p.slice(i);
  return "";
}

function urlParse(v: string): GoValue {
  let u: URL;
  try {
    u = new URL(v, /^[a-zA-Z][a-zA-Z0-9+.-]*:/.test(v) ? undefined : "relative:///");
  } catch (e) {
    throw new GoFuncError(`unable to parse url: ${e instanceof Error ? e.message : String(e)}`);
  }
  const relative = u.protocol === "relative:";
  const user = u.username ? u.username + (u.password ? ":" + u.password : "") : "";
  return {
    scheme: relative ? "" : u.protocol.replace(/:$/, ""),
    host: relative ? "" : u.host,
    hostname: relative ? "" : u.hostname.replace(/^\[|\]$/g, ""),
    path: decodeURIComponent(u.pathname),
    query: u.search.replace(/^\?/, ""),
    opaque: "",
    fragment: decodeURIComponent(u.hash.replace(/^#/, "")),
    userinfo: user,
  };
}

function dictStr(d: GoMap, key: string): string {
  if (!Object.hasOwn(d, key)) return "";
  const v = d[key];
  if (typeof v !== "string") throw new GoFuncError(`unable to parse ${key} key, must be of type string, but ${kindName(v)} found`);
  return v;
}

function urlJoin(d: GoMap): string {
  const scheme = dictStr(d, "scheme");
  const host = dictStr(d, "host");
  const path = dictStr(d, "path");
  const query = dictStr(d, "query");
  const fragment = dictStr(d, "fragment");
  const user = dictStr(d, "userinfo");
  let out = scheme ? scheme + ":" : "";
  if (scheme || host || user) out += "//" + (user ? user + "@" : "") + host;
  out += path && host && !path.startsWith("/") ? "/" + path : path;
  if (query) out += "?" + query;
  if (fragment) out += "#" + encodeURI(fragment);
  return out;
}

/** The encoding/JSON/defaults/path/URL functions. */
export const ENCODING_FUNCS: FuncMap = {
  b64enc: fn(["string"], (a) => Buffer.from(S(a[0]), "utf8").toString("base64")),
  b64dec: fn(["string"], (a) => b64dec(S(a[0]))),
  b32enc: fn(["string"], (a) => b32enc(S(a[0]))),
  b32dec: fn(["string"], (a) => b32dec(S(a[0]))),
  default: fn(["any"], (a) => (a.length < 2 || isEmpty(a[1]) ? a[0] : a[1]), "any"),
  empty: fn(["any"], (a) => isEmpty(a[0])),
  coalesce: fn([], (a) => a.find((x) => !isEmpty(x)) ?? null, "any"),
  all: fn([], (a) => a.every((x) => !isEmpty(x)), "any"),
  any: fn([], (a) => a.some((x) => !isEmpty(x)), "any"),
  ternary: fn(["any", "any", "bool"], (a) => (a[2] ? a[0] : a[1])),
  fromJson: fn(["string"], (a) => {
    try {
      return unmarshal(S(a[0]));
    } catch {
      return null;
    }
  }),
  mustFromJson: fn(["string"], (a) => unmarshal(S(a[0]))),
  toJson: fn(["any"], (a) => {
    try {
      return marshal(a[0]);
    } catch {
      return "";
    }
  }),
  mustToJson: fn(["any"], (a) => marshal(a[0])),
  toPrettyJson: fn(["any"], (a) => {
    try {
      return marshal(a[0], true, "  ");
    } catch {
      return "";
    }
  }),
  mustToPrettyJson: fn(["any"], (a) => marshal(a[0], true, "  ")),
  toRawJson: fn(["any"], (a) => marshal(a[0], false)),
  mustToRawJson: fn(["any"], (a) => marshal(a[0], false)),
  base: fn(["string"], (a) => pathBase(S(a[0]))),
  dir: fn(["string"], (a) => pathDir(S(a[0]))),
  clean: fn(["string"], (a) => pathClean(S(a[0]))),
  ext: fn(["string"], (a) => pathExt(S(a[0]))),
  isAbs: fn(["string"], (a) => S(a[0]).startsWith("/")),
  osBase: fn(["string"], (a) => pathBase(S(a[0]))),
  osClean: fn(["string"], (a) => pathClean(S(a[0]))),
  osDir: fn(["string"], (a) => pathDir(S(a[0]))),
  osExt: fn(["string"], (a) => pathExt(S(a[0]))),
  osIsAbs: fn(["string"], (a) => S(a[0]).startsWith("/")),
  urlParse: fn(["string"], (a) => urlParse(S(a[0]))),
  urlJoin: fn(["map[string]interface {}"], (a) => urlJoin(a[0] as GoMap)),
};
