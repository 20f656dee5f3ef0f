/**
 * Case and wrapping helpers behind Sprig's title, swapcase, camelcase, snakecase, kebabcase, wrap
 * and wrapWith (Go's strings.Title, goutils, huandu/xstrings), on runes as Go does.
 */
import { isAscii } from "../go/value.js";

const isUpper = (r: string): boolean => /^\p{Lu}$/u.test(r);
const isLower = (r: string): boolean => /^\p{Ll}$/u.test(r);
const isTitle = (r: string): boolean => /^\p{Lt}$/u.test(r);
const isLetter = (r: string): boolean => /^\p{L}$/u.test(r);
const isNumber = (r: string): boolean => /^\p{N}$/u.test(r);
const isPunct = (r: string): boolean => /^\p{P}$/u.test(r);
const isSpace = (r: string): boolean => /^[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]$/u.test(r);
const isConnector = (r: string): boolean => r === "-" || r === "_" || isSpace(r);
const isAlphabet = (r: string): boolean =>
  isLetter(r) && (r.codePointAt(0)! < 0x2e80 || !/\p{Script=Han}|\p{Script=Hiragana}|\p{Script=Katakana}|\p{Script=Hangul}/u.test(r));

/** unicode.ToUpper of one rune (keeps the rune when the mapping is not one rune). */
export function runeUpper(r: string): string {
  const u = r.toUpperCase();
  return [...u].length === 1 ? u : r;
}

/** unicode.ToLower of one rune. */
export function runeLower(r: string): string {
  const l = r.toLowerCase();
  return [...l].length === 1 ? l : r;
}

/** strings.ToUpper / ToLower, rune by rune. */
export function goUpper(s: string): string {
  return isAscii(s) ? s.toUpperCase() : [...s].map(runeUpper).join("");
}

/** strings.ToLower. */
export function goLower(s: string): string {
  return isAscii(s) ? s.toLowerCase() : [...s].map(runeLower).join("");
}

function isSeparator(r: string): boolean {
  const c = r.codePointAt(0)!;
  if (c <= 0x7f) return !/[0-9a-zA-Z_]/.test(r);
  if (isLetter(r) || /^\p{Nd}$/u.test(r)) return false;
  return isSpace(r);
}

/** strings.Title. */
export function titleCase(s: string): string {
  let prev = " ";
  let out = "";
  for (const r of s) {
    out += isSeparator(prev) ? runeUpper(r) : r;
    prev = r;
  }
  return out;
}

/** goutils.SwapCase. */
export function swapCase(s: string): string {
  let out = "";
  for (const r of s) {
    if (isUpper(r) || isTitle(r)) out += runeLower(r);
    else if (isLower(r)) out += runeUpper(r);
    else out += r;
  }
  return out;
}

/** xstrings.ToPascalCase. */
export function pascalCase(str: string): string {
  const runes = [...str];
  if (runes.length === 0) return "";
  let out = "";
  let i = 0;
  let r0 = "";
  let firstUpper = false;
  for (; i < runes.length; i++) {
    r0 = runes[i]!;
    if (!isConnector(r0)) {
      firstUpper = isUpper(r0);
      r0 = runeUpper(r0);
      i++;
      break;
    }
    out += r0;
  }
  if (i >= runes.length) return isConnector(r0) ? out : out + r0;
  for (; i < runes.length; i++) {
    const r1 = r0;
    r0 = runes[i]!;
    if (isConnector(r0) && isConnector(r1)) {
      out += r1;
      continue;
    }
    if (isConnector(r1)) {
      firstUpper = isUpper(r0);
      r0 = runeUpper(r0);
    } else {
      if (firstUpper) {
        if (isUpper(r0)) r0 = runeLower(r0);
        else firstUpper = false;
      }
      out += r1;
    }
  }
  return out + r0;
}

type WT = "invalid" | "number" | "upper" | "alpha" | "connector" | "punct" | "other";

function runWhile(rs: string[], at: number, pred: (r: string) => boolean): number {
  while (at < rs.length && pred(rs[at]!)) at++;
  return at;
}

function nextWord(rs: string[], from: number): [WT, number] {
  const r = rs[from]!;
  let i = from + 1;
  if (isConnector(r)) return ["connector", runWhile(rs, i, isConnector)];
  if (isPunct(r)) return ["punct", runWhile(rs, i, isPunct)];
  if (isUpper(r)) {
    if (i >= rs.length) return ["upper", i];
    const r1 = rs[i]!;
    if (isUpper(r1)) {
      const end = runWhile(rs, i, isUpper);
      return ["upper", end < rs.length && isAlphabet(rs[end]!) ? end - 1 : end];
    }
    if (isAlphabet(r1)) i = runWhile(rs, i, (x) => isAlphabet(x) && !isUpper(x));
    return ["upper", i];
  }
  if (isAlphabet(r)) return ["alpha", runWhile(rs, i, (x) => isAlphabet(x) && !isUpper(x))];
  if (isNumber(r)) return ["number", runWhile(rs, i, isNumber)];
  return ["other", runWhile(rs, i, (x) => !(isConnector(x) || isAlphabet(x) || isNumber(x) || isPunct(x)))];
}

/** xstrings' camelCaseToLowerCase (snakecase / kebabcase). */
export function separatedCase(str: string, conn: string): string {
  const rs = [...str];
  if (rs.length === 0) return "";
  return new SeparatedCase(rs, conn).run();
}

/** The word-by-word walk of {@link separatedCase}: the current word, its type, and the output so far. */
class SeparatedCase {
  private out = "";
  private pos = 0;
  private wt: WT;
  private word: string[];

  constructor(
    private readonly rs: string[],
    private readonly conn: string,
  ) {
    const [wt, end] = nextWord(rs, 0);
    this.wt = wt;
    this.word = rs.slice(0, end);
    this.pos = end;
  }

  run(): string {
    while (this.pos < this.rs.length) {
      if (this.wt !== "connector") this.lower(this.wt, this.word);
      const prev = this.wt;
      const last = this.word;
      this.advance();
      if (prev === "number") this.alphanumericRun();
      else if (prev === "connector") this.lower(prev, last);
      else if (prev !== "punct") this.afterWord();
    }
    this.lower(this.wt, this.word);
    return this.out;
  }

  /** The current word's type (a method, so that it is read afresh after each advance). */
  private cur(): WT {
    return this.wt;
  }

  private lower(wt: WT, w: string[]): void {
    if (wt !== "upper" && wt !== "connector") this.out += w.join("");
    else for (const r of w) this.out += isConnector(r) ? this.conn : isUpper(r) ? runeLower(r) : r;
  }

  private advance(): void {
    if (this.pos >= this.rs.length) {
      this.wt = "invalid";
      this.word = [];
      return;
    }
    const [wt, end] = nextWord(this.rs, this.pos);
    this.wt = wt;
    this.word = this.rs.slice(this.pos, end);
    this.pos = end;
  }

  /** After a letter word: a connector before the next word, a number word joined to the letters after it. */
  private afterWord(): void {
    if (this.cur() !== "number") {
      this.connectorUnlessSeparator();
      return;
    }
    if (this.pos >= this.rs.length) return;
    const numWord = this.word;
    this.advance();
    if (this.cur() !== "alpha") {
      this.lower("number", numWord);
      this.connectorUnlessSeparator();
      return;
    }
    this.out += this.conn;
    this.lower("number", numWord);
    this.alphanumericRun();
  }

  /** Copies the letter and number words that follow, then a connector unless the text ends or a separator follows. */
  private alphanumericRun(): void {
    while (this.cur() === "alpha" || this.cur() === "number") {
      this.lower(this.cur(), this.word);
      this.advance();
    }
    if (this.cur() !== "invalid" && this.cur() !== "punct" && this.cur() !== "connector") this.out += this.conn;
  }

  private connectorUnlessSeparator(): void {
    if (this.cur() !== "connector" && this.cur() !== "punct") this.out += this.conn;
  }
}

/** goutils.WrapCustom (byte offsets, wrapping at ' '). */
export function wrapCustom(str: string, wrapLength: number, newLine: string, wrapLong: boolean): string {
  if (str === "") return "";
  if (newLine === "") newLine = "\n";
  if (wrapLength < 1) wrapLength = 1;
  const b = Buffer.from(str, "utf8");
  const sl = (lo: number, hi: number): string => b.subarray(lo, hi).toString("utf8");
  let offset = 0;
  let out = "";
  while (b.length - offset > wrapLength) {
    if (b[offset] === 0x20) {
      offset++;
      continue;
    }
    const end = Math.min(wrapLength + offset + 1, b.length);
    const space = b.subarray(offset, end).lastIndexOf(0x20);
    if (space >= 0) {
      out += sl(offset, offset + space) + newLine;
      offset = offset + space + 1;
    } else if (wrapLong) {
      out += sl(offset, offset + wrapLength) + newLine;
      offset += wrapLength;
    } else {
      const idx = b.subarray(wrapLength + offset).indexOf(0x20);
      if (idx < 0) {
        out += sl(offset, b.length);
        offset = b.length;
      } else {
        const at = idx + wrapLength + offset;
        out += sl(offset, at) + newLine;
        offset = at + 1;
      }
    }
  }
  return out + sl(offset, b.length);
}
