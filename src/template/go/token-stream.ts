/**
 * The parser's view of the lexer's items: one token at a time with look-ahead and backup, spaces
 * skipped on request, and Go's parse error texts with the line of the furthest token read.
 */
import { itemString, T, type Item } from "./lexer.js";

/** A parse failure with Go's message. */
export class TemplateParseError extends Error {
  override name = "TemplateParseError";
}

/** A cursor over a template's items, and the errors a parse reports at it. */
export class TokenStream {
  i = 0;
  maxSeen = 0;
  /** The line the current action started on (0 outside an action), for "in action started at". */
  actionLine = 0;

  constructor(
    readonly name: string,
    readonly items: Item[],
  ) {}

  next(): Item {
    const it = this.items[Math.min(this.i, this.items.length - 1)]!;
    this.i++;
    if (this.i - 1 > this.maxSeen) this.maxSeen = Math.min(this.i - 1, this.items.length - 1);
    return it;
  }
  backup(n = 1): void {
    this.i -= n;
  }
  peek(): Item {
    const it = this.next();
    this.backup();
    return it;
  }
  nextNonSpace(): Item {
    let it: Item;
    do it = this.next();
    while (it.typ === T.Space);
    return it;
  }
  peekNonSpace(): Item {
    const it = this.nextNonSpace();
    this.backup();
    return it;
  }

  errorf(msg: string): never {
    const line = this.items[this.maxSeen]?.line ?? 1;
    throw new TemplateParseError(`template: ${this.name}:${line}: ${msg}`);
  }

  unexpected(token: Item, context: string): never {
    if (token.typ === T.Error) {
      let extra = "";
      if (this.actionLine !== 0 && this.actionLine !== token.line) {
        extra = ` in action started at ${this.name}:${this.actionLine}`;
        if (token.val.endsWith(" action")) extra = extra.slice(" in action".length);
      }
      this.errorf(`${itemString(token)}${extra}`);
    }
    this.errorf(`unexpected ${itemString(token)} in ${context}`);
  }

  expect(typ: T, context: string): Item {
    const token = this.nextNonSpace();
    if (token.typ !== typ) this.unexpected(token, context);
    return token;
  }
}
