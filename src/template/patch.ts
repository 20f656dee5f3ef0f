/**
 * templatePatch (docs/templates.md#templatepatch): the patch text is rendered with the same engine
 * and params, read as JSON when it starts with "{" (after trimming) and as YAML otherwise, then
 * applied to the rendered Application as a strategic merge patch typed as Application: objects
 * merge recursively, lists are replaced except metadata.finalizers (merged, in apimachinery's
 * order), null deletes, and spec.project is kept.
 */
import { yaml } from "../yaml.js";
import { goYamlError } from "../api/go-decode.js";
import { AppSetError } from "../errors.js";
import { goQuote } from "./go/format.js";
import { RENDER_ERROR_REASON, TemplateRenderError, type TemplateEngine } from "./engine.js";
import type { Json, RenderOptions } from "./render.js";

type Obj = { [key: string]: Json };

function isObject(v: Json | undefined): v is Obj {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/**
 * A strategic merge of a list of scalars (patchStrategy "merge"), ordered as apimachinery orders it:
 * the patch's items in the patch's order, the live-only items in their order, interleaved so that a
 * live-only item goes before a patch item only when the live list had it first.
 */
export function mergePrimitiveList(live: readonly Json[], patch: readonly Json[]): Json[] {
  const inPatch = (v: Json): boolean => patch.includes(v);
  const patchItems = [...new Set([...live, ...patch])].filter(inPatch).sort((a, b) => patch.indexOf(a) - patch.indexOf(b));
  const liveOnly = live.filter((v, i) => !inPatch(v) && live.indexOf(v) === i);
  const out: Json[] = [];
  let i = 0;
  let j = 0;
  while (i < liveOnly.length || j < patchItems.length) {
    if (j >= patchItems.length) out.push(liveOnly[i++]!);
    else if (i >= liveOnly.length) out.push(patchItems[j++]!);
    else {
      const li = live.indexOf(liveOnly[i]!);
      const ri = live.indexOf(patchItems[j]!);
      if (li >= 0 && ri >= 0 && li < ri) out.push(liveOnly[i++]!);
      else out.push(patchItems[j++]!);
    }
  }
  return out;
}

function merge(target: Json | undefined, patch: Json, path: string): Json {
  if (!isObject(patch)) {
    if (path === "metadata.finalizers" && Array.isArray(patch) && Array.isArray(target)) {
      return mergePrimitiveList(target, patch);
    }
    return structuredClone(patch);
  }
  const out: Obj = isObject(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = merge(out[k], v, path ? `${path}.${k}` : k);
  }
  return out;
}

/** Applies a rendered templatePatch to an Application. */
export function applyTemplatePatch(app: Obj, patchText: string): Obj {
  let patch: unknown;
  try {
    patch = patchText.trim().startsWith("{") ? JSON.parse(patchText) : yaml().parse(patchText);
  } catch (e) {
    throw new AppSetError(RENDER_ERROR_REASON, `error while converting template to json ${goQuote(patchText)}: ${goYamlError(e)}`);
  }
  if (patch === null || patch === undefined) return app;
  if (!isObject(patch as Json))
    throw new AppSetError(RENDER_ERROR_REASON, `invalid templatePatch ${goQuote(patchText)}: patch is not an object`);
  const project = (app["spec"] as Obj | undefined)?.["project"];
  const out = merge(app, patch as Json, "") as Obj;
  if (project !== undefined && isObject(out["spec"])) out["spec"] = { ...out["spec"], project };
  return out;
}

/** Renders a templatePatch with the params and applies it. */
export function renderTemplatePatch(
  engine: TemplateEngine,
  app: Obj,
  patch: string,
  with_: { params: Readonly<Record<string, unknown>>; opts: RenderOptions },
): Obj {
  const { params, opts } = with_;
  let text: string;
  try {
    text = engine.replace(patch, params, opts.goTemplate, opts.goTemplateOptions ?? []);
  } catch (e) {
    if (e instanceof TemplateRenderError) throw new TemplateRenderError(`error replacing values in templatePatch: ${e.message}`, e.budget);
    throw e;
  }
  return applyTemplatePatch(app, text);
}
