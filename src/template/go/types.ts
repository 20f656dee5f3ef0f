/**
 * The function contract shared by builtins, Sprig and Argo's extras: Go parameter types (used to
 * convert and check arguments exactly as text/template's evalArg/validateType do), and the error
 * a function returns (Go's `error` result or a recovered panic).
 */
import type { GoValue } from "./value.js";

/**
 * A Go parameter type. `any` is interface{}; `value` is reflect.Value (builtins that inspect raw
 * values); other strings are Go type names ("string", "int", "[]interface {}", ...).
 */
export type ParamType = string;

/** What a function receives besides its arguments. */
export interface CallContext {
  /** Injected wall clock (ms since epoch) for now/date functions. */
  now(): number;
  /** Random source in [0, 1). */
  random(): number;
  /** Charges work to the render budget (e.g. output-sized results). */
  charge(units: number): void;
  /** Charges a list about to be built to the render budget (its element count). */
  chargeList(length: number): void;
  /**
   * Parses and executes `text` as a nested template of the template being rendered, with its
   * functions, options and definitions, over `data` (what Argo CD's `tpl` does). Absent where no
   * template offers nesting.
   */
  renderNested?(text: string, data: GoValue): string;
}

/** A function callable from templates. */
export interface GoFunc {
  /** Fixed parameter types. */
  readonly params: readonly ParamType[];
  /** Element type of the trailing variadic parameter, if any. */
  readonly variadic?: ParamType;
  /** Marks Go's builtin and/or/call, which evalCall special-cases. */
  readonly special?: "and" | "or" | "call";
  /** Runs the function; throws {@link GoFuncError} for a Go error result or panic. */
  call(args: GoValue[], ctx: CallContext): GoValue;
}

/** A Go error returned (or panic raised) by a template function. */
export class GoFuncError extends Error {
  override name = "GoFuncError";
  /** @param budget true when the error is (or wraps) a render budget error. */
  constructor(
    message: string,
    readonly budget = false,
  ) {
    super(message);
  }
}

/** Shorthand to declare a function. */
export function fn(params: readonly ParamType[], call: (args: GoValue[], ctx: CallContext) => GoValue, variadic?: ParamType): GoFunc {
  return variadic === undefined ? { params, call } : { params, call, variadic };
}

/** A map of named functions. */
export type FuncMap = Readonly<Record<string, GoFunc>>;
