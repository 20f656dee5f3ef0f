/**
 * Template rendering for ApplicationSets, byte-compatible with Argo CD: fasttemplate mode and Go
 * text/template mode (the full language, reimplemented in TypeScript, with Sprig v3 as Argo CD
 * exposes it plus normalize/slugify/toYaml/fromYaml/fromYamlArray), Application rendering with
 * a compile cache and a render budget, templatePatch and the generator template override.
 *
 * I/O boundary: pure. Time comes from the injected `now`; nothing here touches the cluster.
 */
export { DEFAULT_BUDGET, type RenderBudget } from "./budget.js";
export { RENDER_ERROR_REASON, TemplateEngine, TemplateRenderError, type EngineOptions } from "./engine.js";
export { executeFast, parseFast } from "./fasttemplate.js";
export { normalize, slugMake } from "./functions/argo.js";
export { mergeTemplate } from "./override.js";
export { applyTemplatePatch, renderTemplatePatch } from "./patch.js";
export { renderApplication, renderValue, RESOURCES_FINALIZER, type Json, type RenderOptions } from "./render.js";
