/**
 * Go text/template's lexer: the same states, trim markers, comments and error texts, producing the
 * whole token list up front (stopping after the first error token, as Go's lexer does).
 */

import { goQuoteShort, KEYWORDS, T, type Item } from "./tokens.js";
import { trimEndOf } from "../../trim.js";

export { itemString, T, type Item } from "./tokens.js";

const EOF_RUNE = -1;
const LEFT = "{{";
const RIGHT = "}}";

function isSpace(r: number): boolean {
  return r === 0x20 || r === 0x09 || r === 0x0d || r === 0x0a;
}

const ALNUM = /^[_\p{L}\p{Nd}]$/u;

/** unicode.IsLetter || unicode.IsDigit || '_'. */
export function isAlphaNumeric(r: number): boolean {
  if (r < 0) return false;
  if (r < 0x80) return r === 0x5f || (r >= 0x30 && r <= 0x39) || ((r | 0x20) >= 0x61 && (r | 0x20) <= 0x7a);
  return ALNUM.test(String.fromCodePoint(r));
}

/** Formats a rune as Go's %#U. */
export function sharpU(r: number): string {
  const u = "U+" + r.toString(16).toUpperCase().padStart(4, "0");
  const ch = String.fromCodePoint(r);
  return /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u.test(ch) ? `${u} '${ch}'` : u;
}

/** Lexes a template; breakOK/continueOK mirror Go (true unless a function of that name exists). */
export function lex(input: string): Item[] {
  const l = new Lexer(input);
  const items: Item[] = [];
  for (;;) {
    const it = l.nextItem();
    items.push(it);
    if (it.typ === T.EOF || it.typ === T.Error) return items;
  }
}

type StateFn = ((l: Lexer) => StateFn) | null;

class Lexer {
  pos = 0;
  start = 0;
  atEOF = false;
  parenDepth = 0;
  line = 1;
  startLine = 1;
  item: Item;
  insideAction = false;

  constructor(public input: string) {
    this.item = { typ: T.EOF, pos: 0, val: "EOF", line: 1 };
  }

  nextItem(): Item {
    this.item = { typ: T.EOF, pos: this.pos, val: "EOF", line: this.startLine };
    let state: StateFn = this.insideAction ? lexInsideAction : lexText;
    while (state) state = state(this);
    return this.item;
  }

  next(): number {
    if (this.pos >= this.input.length) {
      this.atEOF = true;
      return EOF_RUNE;
    }
    const r = this.input.codePointAt(this.pos)!;
    this.pos += r > 0xffff ? 2 : 1;
    if (r === 10) this.line++;
    return r;
  }

  peek(): number {
    const r = this.next();
    this.backup();
    return r;
  }

  backup(): void {
    if (!this.atEOF && this.pos > 0) {
      const lo = this.input.charCodeAt(this.pos - 1);
      const w = lo >= 0xdc00 && lo < 0xe000 && this.pos > 1 ? 2 : 1;
      this.pos -= w;
      if (lo === 10) this.line--;
    }
  }

  thisItem(typ: T): Item {
    const i = { typ, pos: this.start, val: this.input.slice(this.start, this.pos), line: this.startLine };
    this.start = this.pos;
    this.startLine = this.line;
    return i;
  }

  emit(typ: T): StateFn {
    this.item = this.thisItem(typ);
    return null;
  }

  emitItem(i: Item): StateFn {
    this.item = i;
    return null;
  }

  ignore(): void {
    this.line += count(this.input.slice(this.start, this.pos), "\n");
    this.start = this.pos;
    this.startLine = this.line;
  }

  accept(valid: string): boolean {
    const r = this.next();
    if (r >= 0 && valid.includes(String.fromCodePoint(r))) return true;
    this.backup();
    return false;
  }

  acceptRun(valid: string): void {
    for (;;) {
      const r = this.next();
      if (r < 0 || !valid.includes(String.fromCodePoint(r))) break;
    }
    this.backup();
  }

  errorf(msg: string): StateFn {
    this.item = { typ: T.Error, pos: this.start, val: msg, line: this.startLine };
    this.start = 0;
    this.pos = 0;
    this.input = "";
    return null;
  }

  atRightDelim(): [boolean, boolean] {
    if (hasRightTrimMarker(this.input, this.pos) && this.input.startsWith(RIGHT, this.pos + 2)) return [true, true];
    return [this.input.startsWith(RIGHT, this.pos), false];
  }

  atTerminator(): boolean {
    const r = this.peek();
    if (isSpace(r)) return true;
    switch (r) {
      case EOF_RUNE:
      case 0x2e:
      case 0x2c:
      case 0x7c:
      case 0x3a:
      case 0x29:
      case 0x28:
        return true;
    }
    return this.input.startsWith(RIGHT, this.pos);
  }
}

function count(s: string, sub: string): number {
  let n = 0;
  for (let i = s.indexOf(sub); i >= 0; i = s.indexOf(sub, i + 1)) n++;
  return n;
}

function hasLeftTrimMarker(s: string, at: number): boolean {
  return s.length - at >= 2 && s[at] === "-" && isSpace(s.charCodeAt(at + 1));
}

function hasRightTrimMarker(s: string, at: number): boolean {
  return s.length - at >= 2 && isSpace(s.charCodeAt(at)) && s[at + 1] === "-";
}

function rightTrimLength(s: string): number {
  return s.length - trimEndOf(s, " \t\r\n").length;
}

function leftTrimLength(s: string): number {
  return s.length - s.replace(/^[ \t\r\n]+/, "").length;
}

function lexText(l: Lexer): StateFn {
  const x = l.input.indexOf(LEFT, l.pos);
  if (x >= 0) {
    if (x > l.pos) {
      l.pos = x;
      let trim = 0;
      if (hasLeftTrimMarker(l.input, x + LEFT.length)) trim = rightTrimLength(l.input.slice(l.start, l.pos));
      l.pos -= trim;
      l.line += count(l.input.slice(l.start, l.pos), "\n");
      const i = l.thisItem(T.Text);
      l.pos += trim;
      l.ignore();
      if (i.val.length > 0) return l.emitItem(i);
    }
    return lexLeftDelim;
  }
  l.pos = l.input.length;
  if (l.pos > l.start) {
    l.line += count(l.input.slice(l.start, l.pos), "\n");
    return l.emit(T.Text);
  }
  return l.emit(T.EOF);
}

function lexLeftDelim(l: Lexer): StateFn {
  l.pos += LEFT.length;
  const trim = hasLeftTrimMarker(l.input, l.pos);
  const after = trim ? 2 : 0;
  if (l.input.startsWith("/*", l.pos + after)) {
    l.pos += after;
    l.ignore();
    return lexComment;
  }
  const i = l.thisItem(T.LeftDelim);
  l.insideAction = true;
  l.pos += after;
  l.ignore();
  l.parenDepth = 0;
  return l.emitItem(i);
}

function lexComment(l: Lexer): StateFn {
  l.pos += 2;
  const x = l.input.indexOf("*/", l.pos);
  if (x < 0) return l.errorf("unclosed comment");
  l.pos = x + 2;
  const [delim, trim] = l.atRightDelim();
  if (!delim) return l.errorf("comment ends before closing delimiter");
  l.line += count(l.input.slice(l.start, l.pos), "\n");
  l.thisItem(T.Comment);
  if (trim) l.pos += 2;
  l.pos += RIGHT.length;
  if (trim) l.pos += leftTrimLength(l.input.slice(l.pos));
  l.ignore();
  return lexText;
}

function lexRightDelim(l: Lexer): StateFn {
  const [, trim] = l.atRightDelim();
  if (trim) {
    l.pos += 2;
    l.ignore();
  }
  l.pos += RIGHT.length;
  const i = l.thisItem(T.RightDelim);
  if (trim) {
    l.pos += leftTrimLength(l.input.slice(l.pos));
    l.ignore();
  }
  l.insideAction = false;
  return l.emitItem(i);
}

// eslint-disable-next-line complexity
function lexInsideAction(l: Lexer): StateFn {
  const [delim] = l.atRightDelim();
  if (delim) {
    if (l.parenDepth === 0) return lexRightDelim;
    return l.errorf("unclosed left paren");
  }
  const r = l.next();
  if (r === EOF_RUNE) return l.errorf("unclosed action");
  if (isSpace(r)) {
    l.backup();
    return lexSpace;
  }
  const c = String.fromCodePoint(r);
  switch (c) {
    case "=":
      return l.emit(T.Assign);
    case ":":
      if (l.next() !== 0x3d) return l.errorf("expected :=");
      return l.emit(T.Declare);
    case "|":
      return l.emit(T.Pipe);
    case '"':
      return lexQuote;
    case "`":
      return lexRawQuote;
    case "$":
      return lexVariable;
    case "'":
      return lexChar;
    case "(":
      l.parenDepth++;
      return l.emit(T.LeftParen);
    case ")":
      l.parenDepth--;
      if (l.parenDepth < 0) return l.errorf("unexpected right paren");
      return l.emit(T.RightParen);
  }
  if (c === ".") {
    if (l.pos < l.input.length) {
      const n = l.input.charCodeAt(l.pos);
      if (n < 0x30 || n > 0x39) return lexField;
    }
  }
  if (c === "." || c === "+" || c === "-" || (r >= 0x30 && r <= 0x39)) {
    l.backup();
    return lexNumber;
  }
  if (isAlphaNumeric(r)) {
    l.backup();
    return lexIdentifier;
  }
  if (r <= 0x7f && r >= 0x20 && r < 0x7f) return l.emit(T.Char);
  return l.errorf(`unrecognized character in action: ${sharpU(r)}`);
}

function lexSpace(l: Lexer): StateFn {
  let n = 0;
  while (isSpace(l.peek())) {
    l.next();
    n++;
  }
  if (hasRightTrimMarker(l.input, l.pos - 1) && l.input.startsWith(RIGHT, l.pos - 1 + 2)) {
    l.backup();
    if (n === 1) return lexRightDelim;
  }
  return l.emit(T.Space);
}

function lexIdentifier(l: Lexer): StateFn {
  for (;;) {
    const r = l.next();
    if (isAlphaNumeric(r)) continue;
    l.backup();
    const word = l.input.slice(l.start, l.pos);
    if (!l.atTerminator()) return l.errorf(`bad character ${sharpU(r)}`);
    const k = KEYWORDS[word];
    if (k !== undefined && Object.hasOwn(KEYWORDS, word)) return l.emit(k);
    if (word[0] === ".") return l.emit(T.Field);
    if (word === "true" || word === "false") return l.emit(T.Bool);
    return l.emit(T.Identifier);
  }
}

function lexField(l: Lexer): StateFn {
  return lexFieldOrVariable(l, T.Field);
}

function lexVariable(l: Lexer): StateFn {
  if (l.atTerminator()) return l.emit(T.Variable);
  return lexFieldOrVariable(l, T.Variable);
}

function lexFieldOrVariable(l: Lexer, typ: T): StateFn {
  if (l.atTerminator()) return l.emit(typ === T.Variable ? T.Variable : T.Dot);
  let r: number;
  for (;;) {
    r = l.next();
    if (!isAlphaNumeric(r)) {
      l.backup();
      break;
    }
  }
  if (!l.atTerminator()) return l.errorf(`bad character ${sharpU(r)}`);
  return l.emit(typ);
}

function lexChar(l: Lexer): StateFn {
  for (;;) {
    let r = l.next();
    if (r === 0x5c) {
      r = l.next();
      if (r !== EOF_RUNE && r !== 10) continue;
      return l.errorf("unterminated character constant");
    }
    if (r === EOF_RUNE || r === 10) return l.errorf("unterminated character constant");
    if (r === 0x27) break;
  }
  return l.emit(T.CharConstant);
}

function lexNumber(l: Lexer): StateFn {
  if (!scanNumber(l)) return l.errorf(`bad number syntax: ${goQuoteShort(l.input.slice(l.start, l.pos))}`);
  const sign = l.peek();
  if (sign === 0x2b || sign === 0x2d) {
    if (!scanNumber(l) || l.input[l.pos - 1] !== "i") {
      return l.errorf(`bad number syntax: ${goQuoteShort(l.input.slice(l.start, l.pos))}`);
    }
    return l.emit(T.Complex);
  }
  return l.emit(T.Number);
}

function scanNumber(l: Lexer): boolean {
  l.accept("+-");
  let digits = "0123456789_";
  if (l.accept("0")) {
    if (l.accept("xX")) digits = "0123456789abcdefABCDEF_";
    else if (l.accept("oO")) digits = "01234567_";
    else if (l.accept("bB")) digits = "01_";
  }
  l.acceptRun(digits);
  if (l.accept(".")) l.acceptRun(digits);
  if (digits.length === 11 && l.accept("eE")) {
    l.accept("+-");
    l.acceptRun("0123456789_");
  }
  if (digits.length === 23 && l.accept("pP")) {
    l.accept("+-");
    l.acceptRun("0123456789_");
  }
  l.accept("i");
  if (isAlphaNumeric(l.peek())) {
    l.next();
    return false;
  }
  return true;
}

function lexQuote(l: Lexer): StateFn {
  for (;;) {
    let r = l.next();
    if (r === 0x5c) {
      r = l.next();
      if (r !== EOF_RUNE && r !== 10) continue;
      return l.errorf("unterminated quoted string");
    }
    if (r === EOF_RUNE || r === 10) return l.errorf("unterminated quoted string");
    if (r === 0x22) break;
  }
  return l.emit(T.String);
}

function lexRawQuote(l: Lexer): StateFn {
  for (;;) {
    const r = l.next();
    if (r === EOF_RUNE) return l.errorf("unterminated raw quoted string");
    if (r === 0x60) break;
  }
  return l.emit(T.RawString);
}
