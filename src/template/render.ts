/**
 * Renders an Application template for one parameter set, as Argo CD's RenderTemplateParams does:
 * every string (and every map key) is an independent template, null map entries are dropped,
 * non-strings are copied; an empty parameter set returns the template verbatim; the default
 * resources finalizer is added when the rendered finalizers are empty and resources are not
 * preserved. Errors name the field being rendered.
 */
import type { TemplateEngine } from "./engine.js";
import { TemplateRenderError } from "./engine.js";

/** JSON-shaped data. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** The finalizer Argo adds by default. */
export const RESOURCES_FINALIZER = "resources-finalizer.argocd.argoproj.io";

/** How to render. */
export interface RenderOptions {
  goTemplate: boolean;
  goTemplateOptions?: readonly string[];
  /** syncPolicy.preserveResourcesOnDeletion (true: no default finalizer). */
  preserveResourcesOnDeletion?: boolean;
}

/** One render: the engine, the parameter set and the options. */
interface Ctx {
  engine: TemplateEngine;
  params: Readonly<Record<string, unknown>>;
  opts: RenderOptions;
}

/** Renders every string (and map key) of `value` with `params`. */
export function renderValue(engine: TemplateEngine, value: Json, params: Readonly<Record<string, unknown>>, opts: RenderOptions): Json {
  return renderAt({ engine, params, opts }, value, "");
}

function renderAt(ctx: Ctx, value: Json, path: string): Json {
  if (typeof value === "string") return renderString(ctx, value, path);
  if (Array.isArray(value)) return value.map((v, i) => renderAt(ctx, v, `${path}[${i}]`));
  if (value === null || typeof value !== "object") return value;
  const out: { [key: string]: Json } = {};
  for (const [k, v] of Object.entries(value)) {
    if (v === null) continue;
    const field = path ? `${path}.${k}` : k;
    const rendered = renderAt(ctx, v, field);
    out[renderString(ctx, k, `${field} (key)`)] = rendered;
  }
  return out;
}

function renderString(ctx: Ctx, s: string, field: string): string {
  try {
    return ctx.engine.replace(s, ctx.params, ctx.opts.goTemplate, ctx.opts.goTemplateOptions ?? []);
  } catch (e) {
    if (e instanceof TemplateRenderError) e.field = field;
    throw e;
  }
}

/** Renders an Application template (metadata + spec) for one parameter set. */
export function renderApplication(
  engine: TemplateEngine,
  template: { [key: string]: Json },
  params: Readonly<Record<string, unknown>>,
  opts: RenderOptions,
): { [key: string]: Json } {
  if (Object.keys(params).length === 0) return structuredClone(template);
  const app = renderValue(engine, template, params, opts) as { [key: string]: Json };
  const metadata = (app["metadata"] ?? {}) as { [key: string]: Json };
  const finalizers = metadata["finalizers"];
  if (!opts.preserveResourcesOnDeletion && (!Array.isArray(finalizers) || finalizers.length === 0)) {
    metadata["finalizers"] = [RESOURCES_FINALIZER];
    app["metadata"] = metadata;
  }
  return app;
}
