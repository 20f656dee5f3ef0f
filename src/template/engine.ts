/**
 * Argo CD's Render.Replace for one string: fasttemplate when goTemplate is false, Go text/template
 * (template name "base", Argo's function map, goTemplateOptions) when true, with Argo's error
 * wrapping. Parsed templates are cached by (mode, options, text) so each distinct field is parsed
 * once however many parameter sets it is rendered with.
 */
import { AppSetError } from "../errors.js";
import { BUDGET_EXCEEDED, DEFAULT_BUDGET, type RenderBudget } from "./budget.js";
import { executeFast, FastTemplateError, parseFast, type FastTemplate } from "./fasttemplate.js";
import { ARGO_FUNC_MAP } from "./functions/index.js";
import { tplScope } from "./functions/tpl.js";
import type { ExecLimits } from "./go/exec.js";
import { TemplateExecError } from "./go/exec.js";
import { TemplateParseError } from "./go/parser.js";
import { compileGo, executeGo, parseOptions, TemplateOptionError, type CompiledGoTemplate } from "./go/template.js";
import { GoFuncError, type CallContext } from "./go/types.js";
import type { GoValue } from "./go/value.js";

/** The reason carried by every template error (Argo's condition reason). */
export const RENDER_ERROR_REASON = "RenderTemplateParamsError";

/** A template failed to parse or execute, or broke the render budget. */
export class TemplateRenderError extends AppSetError {
  /** Dotted path of the field being rendered, when known. */
  field: string | undefined;
  constructor(
    message: string,
    readonly budget = false,
  ) {
    super(RENDER_ERROR_REASON, message);
  }
}

/** How the engine is set up. */
export interface EngineOptions {
  /** Wall clock for now/date functions (ms since epoch). */
  now: () => number;
  /** Monotonic clock for the time budget (ms); no time limit without one. */
  clock?: () => number;
  /** Random source for rand* functions. */
  random?: () => number;
  budget?: Partial<RenderBudget>;
  /** Compiled templates kept (default 20000). */
  cacheSize?: number;
}

type Compiled = { kind: "go"; t: CompiledGoTemplate } | { kind: "fast"; t: FastTemplate } | { kind: "error"; message: string };

/** Renders strings the way Argo CD does, with a compile cache and a budget. */
export class TemplateEngine {
  private readonly cache = new Map<string, Compiled>();
  private readonly budget: RenderBudget;
  private readonly limits: ExecLimits;
  private readonly ctx: CallContext;

  constructor(private readonly opts: EngineOptions) {
    this.budget = { ...DEFAULT_BUDGET, ...opts.budget };
    this.limits = {
      maxSteps: this.budget.maxSteps,
      maxOutput: this.budget.maxOutputChars,
      maxDepth: this.budget.maxDepth,
      maxMillis: this.budget.maxMillis,
      ...(opts.clock ? { clock: opts.clock } : {}),
    };
    const max = this.budget.maxOutputChars;
    const maxList = this.budget.maxListLength;
    this.ctx = {
      now: opts.now,
      random: opts.random ?? Math.random,
      charge(units: number): void {
        if (units > max) throw new GoFuncError(`${BUDGET_EXCEEDED}: value larger than ${max} characters`);
      },
      chargeList(length: number): void {
        if (length > maxList) throw new GoFuncError(`${BUDGET_EXCEEDED}: list of ${length} elements, more than ${maxList}`);
      },
    };
  }

  /** Number of compiled templates held. */
  get cacheEntries(): number {
    return this.cache.size;
  }

  /** Compiles (or fetches) a template. */
  compile(text: string, goTemplate: boolean, options: readonly string[]): Compiled {
    const key = `${goTemplate ? "g" : "f"}${options.join("\u0000")}\u0001${text}`;
    let c = this.cache.get(key);
    if (!c) {
      c = goTemplate ? compileGoCached(text, options) : compileFast(text);
      if (this.cache.size >= (this.opts.cacheSize ?? 20000)) this.cache.clear();
      this.cache.set(key, c);
    }
    return c;
  }

  /** Argo's Replace: renders one string with params; throws {@link TemplateRenderError}. */
  replace(text: string, params: Readonly<Record<string, unknown>>, goTemplate: boolean, options: readonly string[] = []): string {
    const c = this.compile(text, goTemplate, options);
    if (c.kind === "error") throw new TemplateRenderError(c.message);
    if (c.kind === "fast") return executeFast(c.t, params);
    try {
      const scope = tplScope(c.t, this.ctx, this.limits);
      return executeGo(c.t, params as GoValue, scope.ctx, scope.limits);
    } catch (e) {
      if (e instanceof TemplateExecError) throw new TemplateRenderError(`failed to execute go template ${text}: ${e.message}`, e.budget);
      throw e;
    }
  }
}

function compileGoCached(text: string, options: readonly string[]): Compiled {
  let t: CompiledGoTemplate;
  try {
    t = compileGo("base", text, ARGO_FUNC_MAP, "invalid");
  } catch (e) {
    if (e instanceof TemplateParseError) return { kind: "error", message: `failed to parse template ${text}: ${e.message}` };
    throw e;
  }
  try {
    return { kind: "go", t: { ...t, missingKey: parseOptions(options) } };
  } catch (e) {
    if (e instanceof TemplateOptionError) return { kind: "error", message: `panic: ${e.message}` };
    throw e;
  }
}

function compileFast(text: string): Compiled {
  try {
    return { kind: "fast", t: parseFast(text) };
  } catch (e) {
    if (e instanceof FastTemplateError) return { kind: "error", message: e.message };
    throw e;
  }
}
