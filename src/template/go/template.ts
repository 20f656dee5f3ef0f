/**
 * The Go template entry points: parse a text once into an immutable compiled template (trees plus
 * options), then execute it any number of times.
 */
import { BUILTINS } from "./builtins.js";
import { execute, type ExecLimits, type ExecTemplate, type MissingKey } from "./exec.js";
import { parse } from "./parser.js";
import type { CallContext, FuncMap } from "./types.js";
import type { GoValue } from "./value.js";

/** A parsed Go template. */
export type CompiledGoTemplate = ExecTemplate;

/** Thrown for an option Go's Template.Option would panic on. */
export class TemplateOptionError extends Error {
  override name = "TemplateOptionError";
}

/** Applies Go's template.Option strings; returns the missingkey mode. */
export function parseOptions(options: readonly string[]): MissingKey {
  let mode: MissingKey = "invalid";
  for (const opt of options) {
    if (opt === "") throw new TemplateOptionError("empty option string");
    const eqAt = opt.indexOf("=");
    const key = eqAt < 0 ? opt : opt.slice(0, eqAt);
    const value = eqAt < 0 ? null : opt.slice(eqAt + 1);
    if (key === "missingkey" && value !== null) {
      if (value === "invalid" || value === "default") mode = "invalid";
      else if (value === "zero") mode = "zero";
      else if (value === "error") mode = "error";
      else throw new TemplateOptionError(`unrecognized option: ${opt}`);
      continue;
    }
    throw new TemplateOptionError(`unrecognized option: ${opt}`);
  }
  return mode;
}

/** Parses `text` as template `name` with the given functions and options. */
export function compileGo(name: string, text: string, funcs: FuncMap, missingKey: MissingKey): CompiledGoTemplate {
  const has = (n: string): boolean => Object.hasOwn(funcs, n) || Object.hasOwn(BUILTINS, n);
  const trees = parse(name, text, has);
  return { name, text, trees, funcs, builtins: BUILTINS, missingKey };
}

/** Executes a compiled template. */
export function executeGo(t: CompiledGoTemplate, data: GoValue, ctx: CallContext, limits: ExecLimits): string {
  return execute(t, data, ctx, limits);
}
