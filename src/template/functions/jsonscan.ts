/**
 * A JSON syntax checker producing encoding/json's scanner error texts ("invalid character 'x'
 * looking for beginning of value", "unexpected end of JSON input", ...).
 */

function quoteChar(c: string): string {
  if (c === "'") return "'\\''";
  if (c === '"') return "'\"'";
  const q = JSON.stringify(c);
  return "'" + q.slice(1, -1) + "'";
}

class Scan {
  i = 0;
  constructor(readonly s: string) {}

  fail(ctx: string): never {
    if (this.i >= this.s.length) throw new Error("unexpected end of JSON input");
    throw new Error(`invalid character ${quoteChar(String.fromCodePoint(this.s.codePointAt(this.i)!))} ${ctx}`);
  }

  ws(): void {
    while (this.i < this.s.length && " \t\r\n".includes(this.s[this.i]!)) this.i++;
  }

  value(): void {
    this.ws();
    const c = this.s[this.i];
    if (c === "{") return this.object();
    if (c === "[") return this.array();
    if (c === '"') return this.string();
    if (c === "-" || (c !== undefined && c >= "0" && c <= "9")) return this.number();
    for (const lit of ["true", "false", "null"]) {
      if (c === lit[0]) return this.literal(lit);
    }
    this.fail("looking for beginning of value");
  }

  literal(lit: string): void {
    for (let k = 0; k < lit.length; k++, this.i++) {
      if (this.s[this.i] !== lit[k]) this.fail(`in literal ${lit} (expecting ${quoteChar(lit[k]!)})`);
    }
  }

  object(): void {
    this.i++;
    this.ws();
    if (this.s[this.i] === "}") {
      this.i++;
      return;
    }
    for (;;) {
      this.ws();
      if (this.s[this.i] !== '"') this.fail("looking for beginning of object key string");
      this.string();
      this.ws();
      if (this.s[this.i] !== ":") this.fail("after object key");
      this.i++;
      this.value();
      this.ws();
      if (this.s[this.i] === ",") {
        this.i++;
        continue;
      }
      if (this.s[this.i] === "}") {
        this.i++;
        return;
      }
      this.fail("after object key:value pair");
    }
  }

  array(): void {
    this.i++;
    this.ws();
    if (this.s[this.i] === "]") {
      this.i++;
      return;
    }
    for (;;) {
      this.value();
      this.ws();
      if (this.s[this.i] === ",") {
        this.i++;
        continue;
      }
      if (this.s[this.i] === "]") {
        this.i++;
        return;
      }
      this.fail("after array element");
    }
  }

  string(): void {
    this.i++;
    for (;;) {
      const c = this.s[this.i];
      if (c === undefined) this.fail("");
      if (c === '"') {
        this.i++;
        return;
      }
      if (c < " ") this.fail("in string literal");
      if (c === "\\") this.escape();
      this.i++;
    }
  }

  escape(): void {
    this.i++;
    const e = this.s[this.i];
    if (e === "u") {
      for (let k = 0; k < 4; k++) {
        this.i++;
        if (!/[0-9a-fA-F]/.test(this.s[this.i] ?? "")) this.fail("in \\u hexadecimal character escape");
      }
    } else if (e === undefined || !'"\\/bfnrt'.includes(e)) this.fail("in string escape code");
  }

  number(): void {
    if (this.s[this.i] === "-") this.i++;
    const digits = (): number => {
      const st = this.i;
      while (/[0-9]/.test(this.s[this.i] ?? "")) this.i++;
      return this.i - st;
    };
    if (this.s[this.i] === "0") this.i++;
    else if (digits() === 0) this.fail("in numeric literal");
    if (this.s[this.i] === ".") {
      this.i++;
      if (digits() === 0) this.fail("after decimal point in numeric literal");
    }
    if (this.s[this.i] === "e" || this.s[this.i] === "E") {
      this.i++;
      if (this.s[this.i] === "+" || this.s[this.i] === "-") this.i++;
      if (digits() === 0) this.fail("in exponent of numeric literal");
    }
  }
}

/** Go's error text for invalid JSON, or null when the text is valid. */
export function jsonSyntaxError(s: string): string | null {
  const sc = new Scan(s);
  try {
    sc.value();
    sc.ws();
    if (sc.i < s.length) sc.fail("after top-level value");
    return null;
  } catch (e) {
    return (e as Error).message;
  }
}
