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

/** Go's String() of each node type. */
type Printers = { [K in Node["t"]]: (n: Node & { t: K }) => string };

const keyword = (n: { t: string }): string => `{{${n.t}}}`;
const branch = (n: BranchNode): string =>
  `{{${n.t} ${nodeString(n.pipe)}}}${nodeString(n.list)}${n.elseList ? "{{else}}" + nodeString(n.elseList) : ""}{{end}}`;
const operand = (n: Node): string => (n.t === "pipe" ? `(${nodeString(n)})` : nodeString(n));

const PRINTERS: Printers = {
  list: (n) => n.nodes.map(nodeString).join(""),
  text: (n) => n.text,
  comment: (n) => `{{${n.text}}}`,
  action: (n) => `{{${nodeString(n.pipe)}}}`,
  if: branch,
  with: branch,
  range: branch,
  template: (n) => (n.pipe ? `{{template ${JSON.stringify(n.name)} ${nodeString(n.pipe)}}}` : `{{template ${JSON.stringify(n.name)}}}`),
  break: keyword,
  continue: keyword,
  end: keyword,
  else: keyword,
  pipe: (n) => {
    const decl = n.decl.length ? n.decl.map(nodeString).join(", ") + (n.isAssign ? " = " : " := ") : "";
    return decl + n.cmds.map(nodeString).join(" | ");
  },
  command: (n) => n.args.map(operand).join(" "),
  identifier: (n) => n.ident,
  variable: (n) => n.ident.join("."),
  dot: () => ".",
  nil: () => "nil",
  field: (n) => n.ident.map((i) => "." + i).join(""),
  chain: (n) => operand(n.node) + n.field.map((f) => "." + f).join(""),
  bool: (n) => (n.value ? "true" : "false"),
  number: (n) => n.num.text,
  string: (n) => n.quoted,
};

/** Go's Node.String(). */
export function nodeString(n: Node): string {
  return (PRINTERS[n.t] as (n: Node) => string)(n);
}
