/**
 * Configuration of the controller process: the table of flags, environment variables and
 * `argocd-cmd-params-cm` keys (Argo CD's names, plus this controller's own), the pure parser that
 * turns argv and an environment into one validated {@link Config}, the generated reference, and the
 * readers of the variables outside the table (src/config/environment.ts). No I/O: the composition
 * root (src/cli) passes `process.argv` and `process.env` in.
 */
export { ConfigSchema, configUsage, effectiveLogLevel, parseConfig, type Config, type ConfigResult, type Env } from "./config.js";
export {
  awsChainOptions,
  awsRegionAndEndpoints,
  gitHostFiles,
  githubAppCredsExpirationMs,
  gitSubmodulesEnabled,
  kubeEnvironment,
  namespaceFromEnv,
  processProxy,
  scmEnvTokens,
  selfHealBackoff,
  syncDeadlineMs,
  waveDelayMs,
  type AwsRegionAndEndpoints,
  type KubeEnvironment,
  type ProcessProxy,
  type ScmEnvTokens,
  type SelfHealBackoff,
} from "./environment.js";
export { clientRateLimit } from "./k8s-client-options.js";
export { OPTIONS, POLICIES, type OptionDef, type OptionKind, type OptionOrigin, type OptionValue } from "./options.js";
export { SYNC_ENGINE_SETTINGS } from "./sync-engine-options.js";
export { CMD_PARAMS_CONFIGMAP, configReference, deploymentEnv, type ConfigMapEnvVar, type ConfigReferenceRow } from "./reference.js";
