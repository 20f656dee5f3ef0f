/**
 * The tokens of Go text/template's lexer: their types in Go's order, the keyword table, and Go's
 * item.String() used in parse errors.
 */

/** Token types, in Go's order (keywords after KEYWORD). */
export const enum T {
  Error,
  Bool,
  Char,
  CharConstant,
  Comment,
  Complex,
  Assign,
  Declare,
  EOF,
  Field,
  Identifier,
  LeftDelim,
  LeftParen,
  Number,
  Pipe,
  RawString,
  RightDelim,
  RightParen,
  Space,
  String,
  Text,
  Variable,
  Keyword,
  Block,
  Break,
  Continue,
  Dot,
  Define,
  Else,
  End,
  If,
  Nil,
  Range,
  Template,
  With,
}

/** One token. */
export interface Item {
  typ: T;
  pos: number;
  val: string;
  line: number;
}

/** Words that lex as keywords inside actions. */
export const KEYWORDS: Record<string, T> = {
  ".": T.Dot,
  block: T.Block,
  break: T.Break,
  continue: T.Continue,
  define: T.Define,
  else: T.Else,
  end: T.End,
  if: T.If,
  range: T.Range,
  nil: T.Nil,
  template: T.Template,
  with: T.With,
};

/** Go's item.String(), used in "unexpected X in Y" errors. */
export function itemString(i: Item): string {
  if (i.typ === T.EOF) return "EOF";
  if (i.typ === T.Error) return i.val;
  if (i.typ > T.Keyword) return `<${i.val}>`;
  const runes = [...i.val];
  if (runes.length > 10) return goQuoteShort(runes.slice(0, 10).join("")) + "...";
  return goQuoteShort(i.val);
}

/** Go's %q of a short string, as item.String() prints it. */
export function goQuoteShort(s: string): string {
  return JSON.stringify(s)
    .replace(/\\u001b/g, "\\x1b")
    .replace(/\\u00([0-7][0-9a-f])/g, "\\x$1");
}
