/**
 * Template rendering for ApplicationSets, byte-compatible with Argo CD: fasttemplate mode and Go
 * text/template mode (the full language, reimplemented in TypeScript, with Sprig v3 as Argo CD
 * exposes it plus normalize/slugify/toYaml/fromYaml/fromYamlArray/tpl), Application rendering with
 * a compile cache and a render budget, templatePatch and the generator template override.
 *
 * I/O boundary: pure. Time comes from the injected `now`; nothing here touches the cluster.
 *
 * Deliberate deviations from Argo CD (everything else is checked byte for byte against Go by the
 * oracle suites in test/integration/template and test/heavy):
 * - a render budget (steps, output size, template-call depth, time) turns runaway templates into
 *   "render budget exceeded" errors where Go would loop, exhaust memory or hit its 100000 depth;
 * - `keys`/`values` return insertion order where Go's map order is random;
 * - YAML parse errors of fromYaml/fromYamlArray carry the yaml library's text after "yaml: ";
 *   toYaml does not fold quoted strings longer than 80 columns as go-yaml does;
 * - genCA/genSelfSignedCert/genSignedCert/buildCustomCert/genPrivateKey, bcrypt, htpasswd and
 *   derivePassword fail with "not supported"; integers beyond 2^53 inside float params lose precision.
 */
export { DEFAULT_BUDGET, type RenderBudget } from "./budget.js";
export { RENDER_ERROR_REASON, TemplateEngine, TemplateRenderError, type EngineOptions } from "./engine.js";
export { executeFast, parseFast } from "./fasttemplate.js";
export { normalize, slugMake } from "./functions/argo.js";
export { mergeTemplate } from "./override.js";
export { applyTemplatePatch, renderTemplatePatch } from "./patch.js";
export { renderApplication, renderValue, RESOURCES_FINALIZER, type Json, type RenderOptions } from "./render.js";
