/**
 * The executor of Go text/template: walks the parse tree over Go-shaped values with Go's semantics
 * for pipelines, variables, if/with/range (including else-if chains, break/continue, range over
 * maps in key order and over integers), template calls, field chains and missingkey options, and
 * reports errors in Go's exact form: `template: base:1:3: executing "base" at <.x>: ...`.
 */
import type { ArgNode, BranchNode, Node, PipeNode, VariableNode } from "./ast.js";
import { nodeString } from "./ast.js";
import { ArgError, idealConstant, literalArg, validateType } from "./args.js";
import { truth } from "./compare.js";
import { formatValue, goQuote } from "./format.js";
import { GoFuncError, type CallContext, type GoFunc, type ParamType } from "./types.js";
import { ExecState, TemplateExecError, type Dot, type ExecLimits, type ExecTemplate } from "./exec-state.js";

export { TemplateExecError, type ExecLimits, type ExecTemplate, type MissingKey } from "./exec-state.js";
import {
  elemIsInterface,
  elemType,
  GoInt,
  isMap,
  isSpecial,
  mapHas,
  sortedKeys,
  typeName,
  zeroOf,
  type GoMap,
  type GoValue,
} from "./value.js";

const MISSING: unique symbol = Symbol("missing");
type Final = GoValue | typeof MISSING;
/** Control-flow signals for {{break}} and {{continue}} (Go panics with sentinel errors). */
class LoopSignal extends Error {}
const BREAK = new LoopSignal("break");
const CONTINUE = new LoopSignal("continue");
const MAX_EXEC_DEPTH = 100000;

/** Executes a template against data and returns the output. */
export function execute(t: ExecTemplate, data: GoValue, ctx: CallContext, limits: ExecLimits): string {
  const s = new State(t, ctx, limits, data);
  const root = t.trees.get(t.name);
  if (!root) throw new TemplateExecError(`template: ${t.name}: ${goQuote(t.name)} is an incomplete or empty template`);
  try {
    s.walk({ v: data, boxed: false }, root);
  } catch (e) {
    if (e instanceof RangeError) throw new TemplateExecError(`template: ${t.name}: render budget exceeded: nesting too deep`, true);
    throw e;
  }
  return s.out;
}

class State extends ExecState {
  // eslint-disable-next-line complexity
  walk(dot: Dot, node: Node): void {
    this.at(node);
    this.step();
    switch (node.t) {
      case "action": {
        const val = this.evalPipeline(dot, node.pipe);
        if (node.pipe.decl.length === 0) this.printValue(node, val);
        return;
      }
      case "break":
        throw BREAK;
      case "continue":
        throw CONTINUE;
      case "comment":
        return;
      case "if":
      case "with":
        return this.walkIfOrWith(node, dot);
      case "list":
        for (const n of node.nodes) this.walk(dot, n);
        return;
      case "range":
        return this.walkRange(dot, node);
      case "template":
        return this.walkTemplate(dot, node);
      case "text":
        return this.write(node.text);
      default:
        this.errorf(`unknown node: ${nodeString(node)}`);
    }
  }

  walkIfOrWith(node: BranchNode, dot: Dot): void {
    const mark = this.vars.length;
    try {
      const val = this.evalPipeline(dot, node.pipe);
      if (truth(val)) this.walk(node.t === "with" ? { v: val, boxed: false } : dot, node.list);
      else if (node.elseList) this.walk(dot, node.elseList);
    } finally {
      this.vars.length = mark;
    }
  }

  walkRange(dot: Dot, r: BranchNode): void {
    this.at(r);
    const outer = this.vars.length;
    try {
      const val = this.evalPipeline(dot, r.pipe);
      const mark = this.vars.length;
      const one = (index: GoValue, elem: GoValue, boxed: boolean): void => this.oneIteration(r, mark, index, { v: elem, boxed });
      if (!this.rangeOver(r, val, one) && r.elseList) this.walk(dot, r.elseList);
    } catch (e) {
      if (e !== BREAK) throw e;
    } finally {
      this.vars.length = outer;
    }
  }

  /** Iterates; returns false when there was nothing to iterate (so else runs). */
  rangeOver(r: BranchNode, val: GoValue, one: (i: GoValue, e: GoValue, boxed: boolean) => void): boolean {
    if (val === undefined || val === null) return false;
    if (val instanceof GoInt) {
      if (r.pipe.decl.length > 1) this.errorf(`can't use ${formatValue(val)} to iterate over more than one variable`);
      for (let i = 0n; i < val.v; i++) one(undefined, new GoInt(i, val.kind), false);
      return val.v > 0n;
    }
    if (Array.isArray(val)) {
      const boxed = elemIsInterface(val);
      for (let i = 0; i < val.length; i++) one(new GoInt(BigInt(i)), val[i], boxed);
      return val.length > 0;
    }
    if (isMap(val)) {
      const keys = sortedKeys(val);
      const boxed = elemIsInterface(val);
      for (const k of keys) one(k, val[k], boxed);
      return keys.length > 0;
    }
    this.errorf(`range can't iterate over ${formatValue(val)}`);
  }

  oneIteration(r: BranchNode, mark: number, index: GoValue, elem: Dot): void {
    const decl = r.pipe.decl;
    if (decl.length > 0) {
      if (r.pipe.isAssign) {
        if (decl.length > 1) this.setVar(decl[0]!.ident[0]!, index, false);
        else this.setVar(decl[0]!.ident[0]!, elem.v, elem.boxed);
      } else this.setTopVar(1, elem.v, elem.boxed);
    }
    if (decl.length > 1) {
      if (r.pipe.isAssign) this.setVar(decl[1]!.ident[0]!, elem.v, elem.boxed);
      else this.setTopVar(2, index, false);
    }
    try {
      this.walk(elem, r.list);
    } catch (e) {
      if (e !== CONTINUE) throw e;
    } finally {
      this.vars.length = mark;
    }
  }

  walkTemplate(dot: Dot, t: Extract<Node, { t: "template" }>): void {
    this.at(t);
    const tree = this.t.trees.get(t.name);
    if (!tree) this.errorf(`template ${goQuote(t.name)} not defined`);
    if (this.depth === MAX_EXEC_DEPTH) this.errorf(`exceeded maximum template depth (${MAX_EXEC_DEPTH})`);
    if (this.depth >= this.limits.maxDepth) this.errorf(`render budget exceeded: template call depth above ${this.limits.maxDepth}`, true);
    const v = this.evalPipeline(dot, t.pipe);
    const saved = { vars: this.vars, name: this.tmplName };
    this.vars = [{ name: "$", v, boxed: false }];
    this.tmplName = t.name;
    this.depth++;
    try {
      this.walk({ v, boxed: false }, tree);
    } finally {
      this.vars = saved.vars;
      this.tmplName = saved.name;
      this.depth--;
    }
  }

  evalPipeline(dot: Dot, pipe: PipeNode | null): GoValue {
    if (!pipe) return undefined;
    this.at(pipe);
    let value: Final = MISSING;
    for (const cmd of pipe.cmds) {
      value = this.evalCommand(dot, cmd.args, value);
      if (value === null) value = undefined;
    }
    const v = value as GoValue;
    for (const d of pipe.decl) {
      if (pipe.isAssign) this.setVar(d.ident[0]!, v, false);
      else this.vars.push({ name: d.ident[0]!, v, boxed: false });
    }
    return v;
  }

  notAFunction(args: readonly ArgNode[] | null, final: Final): void {
    if ((args && args.length > 1) || final !== MISSING) this.errorf(`can't give argument to non-function ${nodeString(args![0]!)}`);
  }

  evalCommand(dot: Dot, args: readonly ArgNode[], final: Final): GoValue {
    this.step();
    const first = args[0]!;
    switch (first.t) {
      case "field":
        return this.evalFieldNode(dot, first, args, final);
      case "chain":
        return this.evalChainNode(dot, first, args, final);
      case "identifier":
        return this.evalFunction(dot, first, args, final, { t: "command", pos: first.pos, args: [...args] });
      case "pipe":
        this.notAFunction(args, final);
        return this.evalPipeline(dot, first);
      case "variable":
        return this.evalVariableNode(dot, first, args, final);
    }
    this.at(first);
    this.notAFunction(args, final);
    switch (first.t) {
      case "bool":
        return first.value;
      case "dot":
        return dot.v;
      case "nil":
        this.errorf("nil is not a command");
      // eslint-disable-next-line no-fallthrough
      case "number":
        return this.guard(() => idealConstant(first.num));
      case "string":
        return first.text;
    }
  }

  guard<R>(f: () => R): R {
    try {
      return f();
    } catch (e) {
      if (e instanceof ArgError) this.errorf(e.message);
      throw e;
    }
  }

  evalFieldNode(dot: Dot, field: Extract<ArgNode, { t: "field" }>, args: readonly ArgNode[] | null, final: Final): GoValue {
    this.at(field);
    return this.evalFieldChain(dot, dot.v, dot.boxed, field, field.ident, args, final);
  }

  evalChainNode(dot: Dot, chain: Extract<ArgNode, { t: "chain" }>, args: readonly ArgNode[] | null, final: Final): GoValue {
    this.at(chain);
    if (chain.node.t === "nil") this.errorf(`indirection through explicit nil in ${nodeString(chain)}`);
    const pipe = this.evalArg(dot, null, chain.node);
    return this.evalFieldChain(dot, pipe, false, chain, chain.field, args, final);
  }

  evalVariableNode(dot: Dot, variable: VariableNode, args: readonly ArgNode[] | null, final: Final): GoValue {
    this.at(variable);
    const vr = this.varValue(variable.ident[0]!);
    if (variable.ident.length === 1) {
      this.notAFunction(args, final);
      return vr.v;
    }
    return this.evalFieldChain(dot, vr.v, vr.boxed, variable, variable.ident.slice(1), args, final);
  }

  // eslint-disable-next-line max-params -- mirrors text/template's evalFieldChain
  evalFieldChain(
    dot: Dot,
    receiver: GoValue,
    boxed: boolean,
    node: Node,
    ident: readonly string[],
    args: readonly ArgNode[] | null,
    final: Final,
  ): GoValue {
    const n = ident.length;
    for (let i = 0; i < n - 1; i++) {
      receiver = this.evalField(dot, ident[i]!, node, null, MISSING, receiver, boxed);
      boxed = this.lastBoxed;
    }
    return this.evalField(dot, ident[n - 1]!, node, args, final, receiver, boxed);
  }

  // eslint-disable-next-line max-params -- mirrors text/template's evalFunction
  evalFunction(dot: Dot, node: Extract<ArgNode, { t: "identifier" }>, args: readonly ArgNode[] | null, final: Final, cmd: Node): GoValue {
    this.at(node);
    const name = node.ident;
    const own = Object.hasOwn(this.t.funcs, name) ? this.t.funcs[name] : undefined;
    const f = own ?? (Object.hasOwn(this.t.builtins, name) ? this.t.builtins[name] : undefined);
    if (!f) this.errorf(`${goQuote(name)} is not a defined function`);
    return this.evalCall(dot, f, own === undefined, cmd, name, args, final);
  }

  // eslint-disable-next-line max-params -- mirrors text/template's evalField
  evalField(dot: Dot, name: string, node: Node, args: readonly ArgNode[] | null, final: Final, receiver: GoValue, boxed: boolean): GoValue {
    this.lastBoxed = false;
    if (receiver === undefined) {
      if (this.t.missingKey === "error") this.errorf(`nil data; no entry for key ${goQuote(name)}`);
      return undefined;
    }
    const typ = boxed ? "interface {}" : typeName(receiver);
    if (receiver === null) this.errorf(`nil pointer evaluating ${typ}.${name}`);
    if (isSpecial(receiver)) {
      const m = (receiver as { method?: (n: string) => GoFunc | undefined }).method?.(name);
      if (m) return this.evalCall(dot, m, false, node, name, args, final);
    }
    const hasArgs = (args !== null && args.length > 1) || final !== MISSING;
    if (isMap(receiver)) {
      if (hasArgs) this.errorf(`${name} is not a method but has arguments`);
      return this.mapIndex(receiver, name);
    }
    this.errorf(`can't evaluate field ${name} in type ${typ}`);
  }

  mapIndex(m: GoMap, name: string): GoValue {
    if (mapHas(m, name)) {
      this.lastBoxed = elemIsInterface(m);
      return m[name];
    }
    switch (this.t.missingKey) {
      case "invalid":
        return undefined;
      case "zero":
        this.lastBoxed = elemIsInterface(m);
        return zeroOf(elemType(typeName(m)));
      case "error":
        this.errorf(`map has no entry for key ${goQuote(name)}`);
    }
  }

  // eslint-disable-next-line max-params, complexity -- mirrors text/template's evalCall
  evalCall(dot: Dot, f: GoFunc, isBuiltin: boolean, node: Node, name: string, allArgs: readonly ArgNode[] | null, final: Final): GoValue {
    const args = allArgs ? allArgs.slice(1) : [];
    const numIn = args.length + (final !== MISSING ? 1 : 0);
    const numFixed = f.variadic !== undefined ? f.params.length : args.length;
    if (f.variadic !== undefined) {
      if (numIn < numFixed) this.errorf(`wrong number of args for ${name}: want at least ${f.params.length} got ${args.length}`);
    } else if (numIn !== f.params.length) {
      this.errorf(`wrong number of args for ${name}: want ${f.params.length} got ${numIn}`);
    }
    if (isBuiltin && (f.special === "and" || f.special === "or")) {
      let v: GoValue = undefined;
      for (const a of args) {
        v = this.evalArg(dot, "value", a);
        if (truth(v) === (f.special === "or")) return v;
      }
      if (final !== MISSING) v = final;
      return v;
    }
    const argv: GoValue[] = [];
    let i = 0;
    for (; i < numFixed && i < args.length; i++) argv.push(this.evalArg(dot, f.params[i]!, args[i]!));
    if (f.variadic !== undefined) for (; i < args.length; i++) argv.push(this.evalArg(dot, f.variadic, args[i]!));
    if (final !== MISSING) {
      let t: ParamType = f.variadic ?? f.params[f.params.length - 1]!;
      if (f.variadic !== undefined && numIn - 1 < numFixed) t = f.params[numIn - 1]!;
      argv.push(this.guard(() => validateType(final, t)));
    }
    if (isBuiltin && f.special === "call") {
      argv.unshift(args.length === 0 ? formatValue(final as GoValue) : nodeString(args[0]!));
    }
    try {
      return f.call(argv, this.ctx);
    } catch (e) {
      if (e instanceof GoFuncError) {
        this.at(node);
        this.errorf(`error calling ${name}: ${e.message}`, e.budget || e.message.startsWith("render budget exceeded"));
      }
      throw e;
    }
  }

  evalArg(dot: Dot, typ: ParamType | null, n: ArgNode): GoValue {
    this.at(n);
    switch (n.t) {
      case "dot":
        return this.guard(() => validateType(dot.v, typ));
      case "field":
        return this.checked(this.evalFieldNode(dot, n, [n], MISSING), typ);
      case "variable":
        return this.checked(this.evalVariableNode(dot, n, null, MISSING), typ);
      case "pipe":
        return this.checked(this.evalPipeline(dot, n), typ);
      case "identifier":
        return this.checked(this.evalFunction(dot, n, null, MISSING, n), typ);
      case "chain":
        return this.checked(this.evalChainNode(dot, n, null, MISSING), typ);
    }
    return this.guard(() => literalArg(n, typ ?? "any"));
  }

  checked(v: GoValue, typ: ParamType | null): GoValue {
    return this.guard(() => validateType(v, typ));
  }

  printValue(n: Node, v: GoValue): void {
    this.at(n);
    this.write(v === undefined ? "<no value>" : formatValue(v));
  }
}
