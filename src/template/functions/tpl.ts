/**
 * Argo CD's `tpl` (added in v3.6, after Helm's): renders a string as a nested Go template over the
 * data it is given. The nested template is a copy of the top-level template being rendered: same
 * name ("base"), functions and goTemplateOptions (so missingkey=error holds inside it too), and
 * the definitions of the top-level text, which its own definitions override in the copy only.
 * Nesting stops at depth 3, every `<no value>` is removed from the nested output, and failures
 * are wrapped as Argo CD wraps them.
 *
 * The function itself is stateless: {@link tplScope} binds it, for one top-level execution, to
 * the template being rendered and to a depth counter, through the call context.
 */
import { newMeter, TemplateExecError, type ExecLimits, type ExecTemplate } from "../go/exec-state.js";
import { execute } from "../go/exec.js";
import { goQuote } from "../go/format.js";
import { isEmptyTree, TemplateParseError } from "../go/parser.js";
import { compileGo } from "../go/template.js";
import { fn, GoFuncError, type CallContext, type FuncMap } from "../go/types.js";
import type { GoValue } from "../go/value.js";

/** How deep `tpl` calls may nest (Argo CD's TPL_FUNC_MAX_RECURSION_DEPTH). */
export const TPL_FUNC_MAX_RECURSION_DEPTH = 3;

/** The text `tpl` removes from what the nested template printed. */
const NO_VALUE = "<no value>";

/** `tpl TEXT DATA`: the function map entry; the rendering comes from the call context. */
export const TPL_FUNCS: FuncMap = {
  tpl: fn(["string", "any"], ([text, data], ctx) => {
    if (!ctx.renderNested) throw new GoFuncError("tpl is not available here");
    return ctx.renderNested(text as string, data);
  }),
};

/** The call context and limits for one execution of `parent`, with `tpl` bound to it. */
export interface TplScope {
  ctx: CallContext;
  limits: ExecLimits;
}

/**
 * Binds `tpl` to one execution of the top-level template `parent`: every nested template, however
 * deep, is a copy of `parent` (not of the template that called `tpl`), shares one depth counter
 * and draws on the same step and time budget.
 */
export function tplScope(parent: ExecTemplate, base: CallContext, limits: ExecLimits): TplScope {
  const shared: ExecLimits = { ...limits, meter: limits.meter ?? newMeter(limits) };
  let depth = 0;
  const ctx: CallContext = {
    ...base,
    renderNested(text: string, data: GoValue): string {
      depth++;
      try {
        if (depth > TPL_FUNC_MAX_RECURSION_DEPTH) {
          throw new GoFuncError(`maximum recursion depth ${TPL_FUNC_MAX_RECURSION_DEPTH} exceeded in tpl function`);
        }
        return runNested(nestedTemplate(parent, text), data, ctx, shared).replaceAll(NO_VALUE, "");
      } finally {
        depth--;
      }
    },
  };
  return { ctx, limits: shared };
}

function runNested(t: ExecTemplate, data: GoValue, ctx: CallContext, limits: ExecLimits): string {
  try {
    // Execute takes its data as `any`: a nil interface arrives as no value at all.
    return execute(t, data === null ? undefined : data, ctx, limits);
  } catch (e) {
    if (e instanceof TemplateExecError) {
      throw new GoFuncError(`error during tpl function execution for ${goQuote(t.text)}: ${e.message}`, e.budget);
    }
    throw e;
  }
}

/**
 * A copy of `parent` holding `text` parsed under the parent's name. The text's definitions replace
 * the parent's of the same name, except that an empty definition does not replace a parent's
 * (Go's associate rule); the main tree always becomes the one executed.
 */
export function nestedTemplate(parent: ExecTemplate, text: string): ExecTemplate {
  let own: ExecTemplate;
  try {
    own = compileGo(parent.name, text, parent.funcs, parent.missingKey);
  } catch (e) {
    if (e instanceof TemplateParseError) throw new GoFuncError(`cannot parse template ${goQuote(text)}: ${e.message}`);
    throw e;
  }
  const trees = new Map(parent.trees);
  const sources = new Map(parent.sources);
  for (const name of parent.trees.keys()) if (!sources.has(name)) sources.set(name, parent.text);
  for (const [name, tree] of own.trees) {
    if (name !== parent.name && parent.trees.has(name) && isEmptyTree(tree)) continue;
    trees.set(name, tree);
    sources.delete(name);
  }
  return { ...parent, text, trees, sources };
}
