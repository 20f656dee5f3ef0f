/**
 * Sprig's hash, random, UUID and AES functions. Certificate and key generation, bcrypt, htpasswd
 * and derivePassword are not provided (they fail with a clear error).
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes, randomUUID } from "node:crypto";
import { fn, GoFuncError, type FuncMap, type GoFunc } from "../go/types.js";
import type { GoValue } from "../go/value.js";
import { num } from "./cast.js";

const S = (v: GoValue): string => v as string;

function adler32(s: string): string {
  let a = 1;
  let b = 0;
  for (const byte of Buffer.from(s, "utf8")) {
    a = (a + byte) % 65521;
    b = (b + a) % 65521;
  }
  return String(((b << 16) | a) >>> 0);
}

function randomFrom(chars: string, count: number, rnd: () => number): string {
  if (count < 0) throw new GoFuncError(`Requested random length ${count} is less than 0.`);
  let out = "";
  for (let i = 0; i < count; i++) out += chars[Math.floor(rnd() * chars.length)];
  return out;
}

const ALPHA = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
const DIGITS = "0123456789";
const ASCII = Array.from({ length: 95 }, (_, i) => String.fromCharCode(32 + i)).join("");

function aesKey(password: string): Buffer {
  const key = Buffer.alloc(32);
  Buffer.from(password, "utf8").copy(key, 0, 0, 32);
  return key;
}

function encryptAES(password: string, plaintext: string): string {
  const content = Buffer.from(plaintext, "utf8");
  const pad = 16 - (content.length % 16);
  const padded = Buffer.concat([content, Buffer.alloc(pad, pad)]);
  const iv = randomBytes(16);
  const c = createCipheriv("aes-256-cbc", aesKey(password), iv).setAutoPadding(false);
  return Buffer.concat([iv, c.update(padded), c.final()]).toString("base64");
}

function decryptAES(password: string, crypt64: string): string {
  const data = Buffer.from(crypt64, "base64");
  if (data.length < 16) throw new GoFuncError("ciphertext too short");
  const iv = data.subarray(0, 16);
  const body = data.subarray(16);
  if (body.length % 16 !== 0) throw new GoFuncError("crypto/cipher: input not full blocks");
  const d = createDecipheriv("aes-256-cbc", aesKey(password), iv).setAutoPadding(false);
  const plain = Buffer.concat([d.update(body), d.final()]);
  const padLen = plain[plain.length - 1] ?? 0;
  return plain.subarray(0, Math.max(plain.length - padLen, 0)).toString("utf8");
}

function unsupported(name: string, params: string[], variadic?: string): GoFunc {
  return fn(
    params,
    () => {
      throw new GoFuncError(`${name} is not supported by this template engine`);
    },
    variadic,
  );
}

/** The crypto functions. */
export const CRYPTO_FUNCS: FuncMap = {
  sha1sum: fn(["string"], (a) => createHash("sha1").update(S(a[0]), "utf8").digest("hex")),
  sha256sum: fn(["string"], (a) => createHash("sha256").update(S(a[0]), "utf8").digest("hex")),
  sha512sum: fn(["string"], (a) => createHash("sha512").update(S(a[0]), "utf8").digest("hex")),
  adler32sum: fn(["string"], (a) => adler32(S(a[0]))),
  uuidv4: fn([], () => randomUUID()),
  randBytes: fn(["int"], (a) => randomBytes(Math.max(num(a[0]), 0)).toString("base64")),
  randAlphaNum: fn(["int"], (a, ctx) => randomFrom(ALPHA + DIGITS, num(a[0]), () => ctx.random())),
  randAlpha: fn(["int"], (a, ctx) => randomFrom(ALPHA, num(a[0]), () => ctx.random())),
  randAscii: fn(["int"], (a, ctx) => randomFrom(ASCII, num(a[0]), () => ctx.random())),
  randNumeric: fn(["int"], (a, ctx) => randomFrom(DIGITS, num(a[0]), () => ctx.random())),
  shuffle: fn(["string"], (a, ctx) => {
    const r = [...S(a[0])];
    for (let i = r.length - 1; i > 0; i--) {
      const j = Math.floor(ctx.random() * (i + 1));
      [r[i], r[j]] = [r[j]!, r[i]!];
    }
    return r.join("");
  }),
  encryptAES: fn(["string", "string"], (a) => encryptAES(S(a[0]), S(a[1]))),
  decryptAES: fn(["string", "string"], (a) => decryptAES(S(a[0]), S(a[1]))),
  bcrypt: unsupported("bcrypt", ["string"]),
  htpasswd: unsupported("htpasswd", ["string", "string"]),
  derivePassword: unsupported("derivePassword", ["uint32", "string", "string", "string", "string"]),
  genPrivateKey: unsupported("genPrivateKey", ["string"]),
  buildCustomCert: unsupported("buildCustomCert", ["string", "string"]),
  genCA: unsupported("genCA", ["string", "int"]),
  genCAWithKey: unsupported("genCAWithKey", ["string", "int", "string"]),
  genSelfSignedCert: unsupported("genSelfSignedCert", ["string", "[]interface {}", "[]interface {}", "int"]),
  genSelfSignedCertWithKey: unsupported("genSelfSignedCertWithKey", ["string", "[]interface {}", "[]interface {}", "int", "string"]),
  genSignedCert: unsupported("genSignedCert", ["string", "[]interface {}", "[]interface {}", "int", "any"]),
  genSignedCertWithKey: unsupported("genSignedCertWithKey", ["string", "[]interface {}", "[]interface {}", "int", "any", "string"]),
};
