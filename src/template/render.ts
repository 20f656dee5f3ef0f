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

/** Renders every string of `value` with `params`; `path` names the field for errors. */
export function renderValue(engine: TemplateEngine, value: Json, params: Readonly<Record<string, unknown>>, opts: RenderOptions, path = ""): Json {
  if (typeof value === "string") return renderString(engine, value, params, opts, path);
  if (Array.isArray(value)) return value.map((v, i) => renderValue(engine, v, params, opts, `${path}[${i}]`));
  if (value === null || typeof value !== "object") return value;
  const out: { [key: string]: Json } = {};
  for (const [k, v] of Object.entries(value)) {
    if (v === null) continue;
    const field = path ? `${path}.${k}` : k;
    const rendered = renderValue(engine, v, params, opts, field);
    out[renderString(engine, k, params, opts, `${field} (key)`)] = rendered;
  }
  return out;
}

function renderString(engine: TemplateEngine, s: string, params: Readonly<Record<string, unknown>>, opts: RenderOptions, field: string): string {
  try {
    return engine.replace(s, params, opts.goTemplate, opts.goTemplateOptions ?? []);
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
