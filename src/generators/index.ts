/**
 * Generators: turn an ApplicationSet's generator entries into parameter sets (List, Cluster, Git,
 * Matrix, Merge, Cluster Decision Resource, Plugin, SCM Provider, Pull Request). Each receives narrow
 * injected readers (cluster Secrets, Git, HTTP), never a Kubernetes client; a failure is a typed error,
 * never an empty result.
 */
export { generateParams, appSetRequeueAfterMs, type GeneratedParams } from "./generate.js";
export { createGeneratorRegistry, type GeneratorRegistry, type GeneratorSpecs } from "./registry.js";
export { transformEntry, childParams, kindsOf, type GeneratorEntry, type TransformResult, type TransformOptions } from "./transform.js";
export { GeneratorError, GeneratorMessage, GeneratorWrap } from "./errors.js";
export {
  DEFAULT_GENERATOR_SETTINGS,
  templateMode,
  type ClusterSecretLister,
  type ConfigMapReader,
  type DuckResource,
  type DuckResourceLister,
  type Generator,
  type GeneratorContext,
  type GeneratorPorts,
  type GeneratorSettings,
  type HttpFetch,
  type ParamSet,
  type SecretReader,
  type StringRenderer,
  type TemplateMode,
} from "./types.js";
export { flattenParams, appendValues, pathParams } from "./params.js";
export { compileSelector, POST_SELECTOR, type LabelMatcher } from "./selector.js";
