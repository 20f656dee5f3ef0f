/**
 * Parse-tree nodes of Go's text/template, with Go's String() rendering of each node (used verbatim
 * in execution error messages: `executing "base" at <.x>`). Positions are UTF-16 offsets into the
 * template text; errors convert them to Go's byte offsets.
 */

/** A number literal with every interpretation Go's parser records. */
export interface NumberInfo {
  isInt: boolean;
  isUint: boolean;
  isFloat: boolean;
  isComplex: boolean;
  int64: bigint;
  uint64: bigint;
  float64: number;
  text: string;
}

/** Every node type. */
export type Node =
  | { t: "list"; pos: number; nodes: Node[] }
  | { t: "text"; pos: number; text: string }
  | { t: "comment"; pos: number; text: string }
  | { t: "action"; pos: number; line: number; pipe: PipeNode }
  | { t: "if" | "with" | "range"; pos: number; line: number; pipe: PipeNode; list: ListNode; elseList: ListNode | null }
  | { t: "template"; pos: number; line: number; name: string; pipe: PipeNode | null }
  | { t: "break" | "continue"; pos: number; line: number }
  | { t: "end" | "else"; pos: number; line: number }
  | PipeNode
  | CommandNode
  | ArgNode;

/** A pipeline: optional declarations and commands. */
export interface PipeNode {
  t: "pipe";
  pos: number;
  line: number;
  isAssign: boolean;
  decl: VariableNode[];
  cmds: CommandNode[];
}

/** One command of a pipeline. */
export interface CommandNode {
  t: "command";
  pos: number;
  args: ArgNode[];
}

/** A variable reference ($x.f.g). */
export interface VariableNode {
  t: "variable";
  pos: number;
  ident: string[];
}

/** An operand. */
export type ArgNode =
  | { t: "identifier"; pos: number; ident: string }
  | VariableNode
  | { t: "dot"; pos: number }
  | { t: "nil"; pos: number }
  | { t: "field"; pos: number; ident: string[] }
  | { t: "chain"; pos: number; node: ArgNode; field: string[] }
  | { t: "bool"; pos: number; value: boolean }
  | { t: "number"; pos: number; num: NumberInfo }
  | { t: "string"; pos: number; quoted: string; text: string }
  | PipeNode;

/** An if, with or range node. */
export type BranchNode = Extract<Node, { t: "if" | "with" | "range" }>;

/** A list of nodes. */
export type ListNode = Extract<Node, { t: "list" }>;

/** Go's Node.String(). */
export function nodeString(n: Node): string {
  switch (n.t) {
    case "list":
      return n.nodes.map(nodeString).join("");
    case "text":
      return n.text;
    case "comment":
      return `{{${n.text}}}`;
    case "action":
      return `{{${nodeString(n.pipe)}}}`;
    case "if":
    case "with":
    case "range":
      return `{{${n.t} ${nodeString(n.pipe)}}}${nodeString(n.list)}${n.elseList ? "{{else}}" + nodeString(n.elseList) : ""}{{end}}`;
    case "template":
      return n.pipe ? `{{template ${JSON.stringify(n.name)} ${nodeString(n.pipe)}}}` : `{{template ${JSON.stringify(n.name)}}}`;
    case "break":
    case "continue":
    case "end":
    case "else":
      return `{{${n.t}}}`;
    case "pipe": {
      const decl = n.decl.length ? n.decl.map(nodeString).join(", ") + (n.isAssign ? " = " : " := ") : "";
      return decl + n.cmds.map(nodeString).join(" | ");
    }
    case "command":
      return n.args.map((a) => (a.t === "pipe" ? `(${nodeString(a)})` : nodeString(a))).join(" ");
    default:
      return argString(n);
  }
}

function argString(n: ArgNode): string {
  switch (n.t) {
    case "identifier":
      return n.ident;
    case "variable":
      return n.ident.join(".");
    case "dot":
      return ".";
    case "nil":
      return "nil";
    case "field":
      return n.ident.map((i) => "." + i).join("");
    case "chain":
      return (n.node.t === "pipe" ? `(${nodeString(n.node)})` : nodeString(n.node)) + n.field.map((f) => "." + f).join("");
    case "bool":
      return n.value ? "true" : "false";
    case "number":
      return n.num.text;
    case "string":
      return n.quoted;
    case "pipe":
      return nodeString(n);
  }
}
