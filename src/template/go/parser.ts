/**
 * Go text/template's parser: pipelines, declarations, control structures, define/block/template,
 * with Go's error texts ("template: base:1: function \"x\" not defined", "unexpected EOF", ...).
 */
import type { ArgNode, CommandNode, ListNode, Node, NumberInfo, PipeNode, VariableNode } from "./ast.js";
import { nodeString } from "./ast.js";
import { lex, T, type Item } from "./lexer.js";
import { parseNumber, unquote } from "./literals.js";
import { TokenStream } from "./token-stream.js";

export { TemplateParseError } from "./token-stream.js";

/** The result of parsing: the named trees (the main one under the parse name). */
export type TreeSet = Map<string, ListNode>;

const MAX_STACK_DEPTH = 10000;

/** Parses a template text into its tree set. `hasFunction` says which identifiers are functions. */
export function parse(name: string, text: string, hasFunction: (n: string) => boolean): TreeSet {
  const items = lex(text);
  const trees: TreeSet = new Map();
  const p = new Parser(name, items, hasFunction, trees);
  p.parseMain();
  return trees;
}

class Parser extends TokenStream {
  vars: string[] = ["$"];
  rangeDepth = 0;
  stackDepth = 0;

  constructor(
    name: string,
    items: Item[],
    readonly hasFunction: (n: string) => boolean,
    readonly trees: TreeSet,
  ) {
    super(name, items);
  }

  add(name: string, root: ListNode): void {
    const existing = this.trees.get(name);
    if (!existing || isEmptyTree(existing)) {
      this.trees.set(name, root);
      return;
    }
    if (!isEmptyTree(root)) this.errorf(`template: multiple definition of template ${JSON.stringify(name)}`);
  }

  parseMain(): void {
    const root: ListNode = { t: "list", pos: this.peek().pos, nodes: [] };
    while (this.peek().typ !== T.EOF) {
      if (this.peek().typ === T.LeftDelim) {
        const save = this.i;
        this.next();
        if (this.nextNonSpace().typ === T.Define) {
          this.parseDefinition();
          continue;
        }
        this.i = save;
      }
      const n = this.textOrAction();
      if (n.t === "end" || n.t === "else") this.errorf(`unexpected ${nodeString(n)}`);
      root.nodes.push(n);
    }
    this.add(this.name, root);
  }

  parseDefinition(): void {
    const context = "define clause";
    const savedVars = this.vars;
    this.vars = ["$"];
    const tok = this.nextNonSpace();
    if (tok.typ !== T.String && tok.typ !== T.RawString) this.unexpected(tok, context);
    const name = this.unquoteOr(tok.val);
    this.expect(T.RightDelim, context);
    const [root, end] = this.itemList();
    if (end.t !== "end") this.errorf(`unexpected ${nodeString(end)} in ${context}`);
    this.add(name, root);
    this.vars = savedVars;
  }

  unquoteOr(s: string): string {
    const u = unquote(s);
    if (u === null) this.errorf("invalid syntax");
    return u;
  }

  itemList(): [ListNode, Node] {
    const list: ListNode = { t: "list", pos: this.peekNonSpace().pos, nodes: [] };
    while (this.peekNonSpace().typ !== T.EOF) {
      const n = this.textOrAction();
      if (n.t === "end" || n.t === "else") return [list, n];
      list.nodes.push(n);
    }
    this.errorf("unexpected EOF");
  }

  textOrAction(): Node {
    const token = this.nextNonSpace();
    switch (token.typ) {
      case T.Text:
        return { t: "text", pos: token.pos, text: token.val };
      case T.LeftDelim: {
        this.actionLine = token.line;
        try {
          return this.action();
        } finally {
          this.actionLine = 0;
        }
      }
      default:
        this.unexpected(token, "input");
    }
  }

  action(): Node {
    const token = this.nextNonSpace();
    switch (token.typ) {
      case T.Block:
        return this.blockControl();
      case T.Break:
      case T.Continue:
        return this.loopControl(token);
      case T.Else:
        return this.elseControl();
      case T.End:
        return { t: "end", pos: this.expect(T.RightDelim, "end").pos, line: token.line };
      case T.If:
        return this.control("if");
      case T.Range:
        return this.control("range");
      case T.Template:
        return this.templateControl();
      case T.With:
        return this.control("with");
    }
    this.backup();
    const tok = this.peek();
    return { t: "action", pos: tok.pos, line: tok.line, pipe: this.pipeline("command", T.RightDelim) };
  }

  loopControl(token: Item): Node {
    const kind = token.typ === T.Break ? "break" : "continue";
    const next = this.nextNonSpace();
    if (next.typ !== T.RightDelim) this.unexpected(next, `{{${kind}}}`);
    if (this.rangeDepth === 0) this.errorf(`{{${kind}}} outside {{range}}`);
    return { t: kind, pos: token.pos, line: token.line };
  }

  elseControl(): Node {
    const peek = this.peekNonSpace();
    if (peek.typ === T.If || peek.typ === T.With) return { t: "else", pos: peek.pos, line: peek.line };
    const token = this.expect(T.RightDelim, "else");
    return { t: "else", pos: token.pos, line: token.line };
  }

  control(context: "if" | "with" | "range"): Node {
    const nvars = this.vars.length;
    try {
      const pipe = this.pipeline(context, T.RightDelim);
      if (context === "range") this.rangeDepth++;
      const [list, next] = this.itemList();
      if (context === "range") this.rangeDepth--;
      let elseList: ListNode | null = null;
      if (next.t === "else") elseList = this.elseBranch(context, next.pos);
      return { t: context, pos: pipe.pos, line: pipe.line, pipe, list, elseList };
    } finally {
      this.vars.length = nvars;
    }
  }

  elseBranch(context: string, pos: number): ListNode {
    const peek = this.peek();
    if ((context === "if" && peek.typ === T.If) || (context === "with" && peek.typ === T.With)) {
      this.next();
      return { t: "list", pos, nodes: [this.control(context)] };
    }
    const [elseList, end] = this.itemList();
    if (end.t !== "end") this.errorf(`expected end; found ${nodeString(end)}`);
    return elseList;
  }

  blockControl(): Node {
    const context = "block clause";
    const token = this.nextNonSpace();
    const name = this.templateName(token, context);
    const pipe = this.pipeline(context, T.RightDelim);
    const savedVars = this.vars;
    const savedRange = this.rangeDepth;
    this.vars = ["$"];
    this.rangeDepth = 0;
    const [root, end] = this.itemList();
    if (end.t !== "end") this.errorf(`unexpected ${nodeString(end)} in ${context}`);
    this.add(name, root);
    this.vars = savedVars;
    this.rangeDepth = savedRange;
    return { t: "template", pos: token.pos, line: token.line, name, pipe };
  }

  templateControl(): Node {
    const context = "template clause";
    const token = this.nextNonSpace();
    const name = this.templateName(token, context);
    let pipe: PipeNode | null = null;
    if (this.nextNonSpace().typ !== T.RightDelim) {
      this.backup();
      pipe = this.pipeline(context, T.RightDelim);
    }
    return { t: "template", pos: token.pos, line: token.line, name, pipe };
  }

  templateName(token: Item, context: string): string {
    if (token.typ === T.String || token.typ === T.RawString) return this.unquoteOr(token.val);
    this.unexpected(token, context);
  }

  pipeline(context: string, end: T): PipeNode {
    const token = this.peekNonSpace();
    const pipe: PipeNode = { t: "pipe", pos: token.pos, line: token.line, isAssign: false, decl: [], cmds: [] };
    this.declarations(pipe, context);
    for (;;) {
      const tok = this.nextNonSpace();
      if (tok.typ === end) {
        this.checkPipeline(pipe, context);
        return pipe;
      }
      if (isOperandStart(tok.typ)) {
        this.backup();
        pipe.cmds.push(this.command());
      } else this.unexpected(tok, context);
    }
  }

  declarations(pipe: PipeNode, context: string): void {
    for (;;) {
      const v = this.peekNonSpace();
      if (v.typ !== T.Variable) return;
      const save = this.i;
      this.nextNonSpace();
      const after = this.peek();
      const next = this.peekNonSpace();
      if (next.typ === T.Assign || next.typ === T.Declare) {
        pipe.isAssign = next.typ === T.Assign;
        this.nextNonSpace();
        pipe.decl.push(variableNode(v));
        this.vars.push(v.val);
        return;
      }
      if (next.typ === T.Char && next.val === ",") {
        this.nextNonSpace();
        pipe.decl.push(variableNode(v));
        this.vars.push(v.val);
        if (context === "range" && pipe.decl.length < 2) {
          const pk = this.peekNonSpace().typ;
          if (pk === T.Variable || pk === T.RightDelim || pk === T.RightParen) continue;
          this.errorf("range can only initialize variables");
        }
        this.errorf(`too many declarations in ${context}`);
      }
      void after;
      this.i = save;
      return;
    }
  }

  checkPipeline(pipe: PipeNode, context: string): void {
    if (pipe.cmds.length === 0) this.errorf(`missing value for ${context}`);
    pipe.cmds.slice(1).forEach((c, i) => {
      const t = c.args[0]!.t;
      if (t === "bool" || t === "dot" || t === "nil" || t === "number" || t === "string") {
        this.errorf(`non executable command in pipeline stage ${i + 2}`);
      }
    });
  }

  command(): CommandNode {
    const cmd: CommandNode = { t: "command", pos: this.peekNonSpace().pos, args: [] };
    for (;;) {
      this.peekNonSpace();
      const operand = this.operand();
      if (operand) cmd.args.push(operand);
      const token = this.next();
      if (token.typ === T.Space) continue;
      if (token.typ === T.RightDelim || token.typ === T.RightParen) this.backup();
      else if (token.typ !== T.Pipe) this.unexpected(token, "operand");
      break;
    }
    if (cmd.args.length === 0) this.errorf("empty command");
    return cmd;
  }

  operand(): ArgNode | null {
    const node = this.term();
    if (!node) return null;
    if (this.peek().typ !== T.Field) return node;
    const pos = this.peek().pos;
    const fields: string[] = [];
    while (this.peek().typ === T.Field) fields.push(this.next().val.slice(1));
    switch (node.t) {
      case "field":
        return { t: "field", pos, ident: [...node.ident, ...fields] };
      case "variable":
        return { t: "variable", pos, ident: [...node.ident, ...fields] };
      case "bool":
      case "string":
      case "number":
      case "nil":
      case "dot":
        this.errorf(`unexpected . after term ${JSON.stringify(nodeString(node))}`);
      // eslint-disable-next-line no-fallthrough
      default:
        return { t: "chain", pos, node, field: fields };
    }
  }

  // eslint-disable-next-line complexity
  term(): ArgNode | null {
    const token = this.nextNonSpace();
    switch (token.typ) {
      case T.Identifier:
        if (!this.hasFunction(token.val)) this.errorf(`function ${JSON.stringify(token.val)} not defined`);
        return { t: "identifier", pos: token.pos, ident: token.val };
      case T.Dot:
        return { t: "dot", pos: token.pos };
      case T.Nil:
        return { t: "nil", pos: token.pos };
      case T.Variable:
        return this.useVar(token);
      case T.Field:
        return { t: "field", pos: token.pos, ident: [token.val.slice(1)] };
      case T.Bool:
        return { t: "bool", pos: token.pos, value: token.val === "true" };
      case T.CharConstant:
      case T.Complex:
      case T.Number:
        return { t: "number", pos: token.pos, num: this.number(token) };
      case T.LeftParen: {
        if (this.stackDepth >= MAX_STACK_DEPTH) this.errorf("max expression depth exceeded");
        this.stackDepth++;
        try {
          return this.pipeline("parenthesized pipeline", T.RightParen);
        } finally {
          this.stackDepth--;
        }
      }
      case T.String:
      case T.RawString:
        return { t: "string", pos: token.pos, quoted: token.val, text: this.unquoteOr(token.val) };
    }
    this.backup();
    return null;
  }

  number(token: Item): NumberInfo {
    const r = parseNumber(token.val, token.typ === T.CharConstant, token.typ === T.Complex);
    if (typeof r === "string") this.errorf(r);
    return r;
  }

  useVar(token: Item): VariableNode {
    const v = variableNode(token);
    if (!this.vars.includes(v.ident[0]!)) this.errorf(`undefined variable ${JSON.stringify(v.ident[0])}`);
    return v;
  }
}

function variableNode(token: Item): VariableNode {
  return { t: "variable", pos: token.pos, ident: token.val.split(".") };
}

/** The tokens an operand starts with. */
const OPERAND_START: ReadonlySet<T> = new Set([
  T.Bool,
  T.CharConstant,
  T.Complex,
  T.Dot,
  T.Field,
  T.Identifier,
  T.Number,
  T.Nil,
  T.RawString,
  T.String,
  T.Variable,
  T.LeftParen,
]);

function isOperandStart(t: T): boolean {
  return OPERAND_START.has(t);
}

/** parse.IsEmptyTree. */
export function isEmptyTree(n: Node): boolean {
  switch (n.t) {
    case "comment":
      return true;
    case "list":
      return n.nodes.every(isEmptyTree);
    case "text":
      return n.text.trim().length === 0;
    default:
      return false;
  }
}
