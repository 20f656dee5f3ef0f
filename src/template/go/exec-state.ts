/**
 * The state of one Go text/template execution that the executor's walk and evaluation share: the
 * output, the variable stack, the node being executed, and the budgets (steps, output, time), with
 * Go's execution error texts (`template: base:1:3: executing "base" at <.x>: ...`).
 */
import type { ListNode, Node } from "./ast.js";
import { nodeString } from "./ast.js";
import { goQuote } from "./format.js";
import type { CallContext, FuncMap } from "./types.js";
import type { GoValue } from "./value.js";

/** What a missing map key evaluates to. */
export type MissingKey = "invalid" | "zero" | "error";

/** Limits on one execution. */
export interface ExecLimits {
  maxSteps: number;
  maxOutput: number;
  maxDepth: number;
  /** Wall-clock budget in ms, measured with `clock` (checked every 4096 steps). */
  maxMillis: number;
  clock?: () => number;
  /**
   * The step count and start time to charge; executions that share one (a template and the nested
   * templates its functions render) share one step and time budget. A fresh one when absent.
   */
  meter?: ExecMeter;
}

/** Steps taken and the clock reading at the start, for the step and time budgets. */
export interface ExecMeter {
  steps: number;
  readonly started: number;
}

/** A meter that starts now on the limits' clock. */
export function newMeter(limits: ExecLimits): ExecMeter {
  return { steps: 0, started: limits.clock?.() ?? 0 };
}

/** A parsed template ready to execute. */
export interface ExecTemplate {
  name: string;
  text: string;
  trees: Map<string, ListNode>;
  funcs: FuncMap;
  builtins: FuncMap;
  missingKey: MissingKey;
  /**
   * The source text of templates parsed from another text than `text` (a nested template's view
   * of its parent's definitions), by template name, so error positions point into the right text.
   */
  sources?: ReadonlyMap<string, string>;
}

/** A Go execution error (message in Go's format). */
export class TemplateExecError extends Error {
  override name = "TemplateExecError";
  constructor(
    message: string,
    readonly budget = false,
  ) {
    super(message);
  }
}

/** The value `.` stands for, and whether it came boxed in an interface. */
export interface Dot {
  v: GoValue;
  boxed: boolean;
}
/** A variable of the stack: its name, value and whether the value is boxed. */
export interface Variable {
  name: string;
  v: GoValue;
  boxed: boolean;
}

/** What the walk and the evaluation share: output, variables, the current node and the budgets. */
export class ExecState {
  out = "";
  node: Node | null = null;
  vars: Variable[];
  depth = 0;
  tmplName: string;
  lastBoxed = false;
  readonly meter: ExecMeter;

  constructor(
    readonly t: ExecTemplate,
    readonly ctx: CallContext,
    readonly limits: ExecLimits,
    data: GoValue,
  ) {
    this.vars = [{ name: "$", v: data, boxed: false }];
    this.tmplName = t.name;
    this.meter = limits.meter ?? newMeter(limits);
  }

  at(n: Node): void {
    this.node = n;
  }

  errorf(msg: string, budget = false): never {
    const name = this.tmplName;
    if (!this.node) throw new TemplateExecError(`template: ${name}: ${msg}`, budget);
    const text = (this.t.sources?.get(name) ?? this.t.text).slice(0, this.node.pos);
    const nl = text.lastIndexOf("\n");
    const line = 1 + (text.match(/\n/g)?.length ?? 0);
    const col = Buffer.byteLength(nl < 0 ? text : text.slice(nl + 1), "utf8");
    const loc = `${this.t.name}:${line}:${col}`;
    throw new TemplateExecError(`template: ${loc}: executing ${goQuote(name)} at <${nodeString(this.node)}>: ${msg}`, budget);
  }

  step(): void {
    const meter = this.meter;
    if (++meter.steps > this.limits.maxSteps)
      this.errorf(`render budget exceeded: more than ${this.limits.maxSteps} evaluation steps`, true);
    if ((meter.steps & 4095) === 0 && this.limits.clock) {
      if (this.limits.clock() - meter.started > this.limits.maxMillis)
        this.errorf(`render budget exceeded: more than ${this.limits.maxMillis} ms`, true);
    }
  }

  write(s: string): void {
    this.out += s;
    if (this.out.length > this.limits.maxOutput)
      this.errorf(`render budget exceeded: output larger than ${this.limits.maxOutput} characters`, true);
  }

  setVar(name: string, v: GoValue, boxed: boolean): void {
    for (let i = this.vars.length - 1; i >= 0; i--) {
      const vr = this.vars[i]!;
      if (vr.name === name) {
        vr.v = v;
        vr.boxed = boxed;
        return;
      }
    }
    this.errorf(`undefined variable: ${name}`);
  }

  setTopVar(n: number, v: GoValue, boxed: boolean): void {
    const vr = this.vars[this.vars.length - n]!;
    vr.v = v;
    vr.boxed = boxed;
  }

  varValue(name: string): Variable {
    for (let i = this.vars.length - 1; i >= 0; i--) if (this.vars[i]!.name === name) return this.vars[i]!;
    this.errorf(`undefined variable: ${name}`);
  }
}
