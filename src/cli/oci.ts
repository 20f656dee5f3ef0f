/**
 * The process's OCI artifact reader (the OCI generator's): repository credentials from the same
 * Secrets as Git's, CA bundles where Argo CD mounts `argocd-tls-certs-cm`, the proxy variables of
 * the environment, Argo CD's repo-server time limit per request, and our artifact size limit.
 */
import { gitHostFiles, type Config, type Env } from "../config/index.js";
import { DEFAULT_OCI_ARTIFACT_MAX_BYTES } from "../config/limit-options.js";
import type { CredentialsLookup } from "../git/index.js";
import { RegistryOciReader } from "../oci/index.js";

/** Time limit of one registry request when `--repo-server-timeout-seconds` is 0 (none): Argo CD's default, 60 s. */
const DEFAULT_REGISTRY_TIMEOUT_MS = 60_000;

/** Builds the reader over repository credentials that follow their Secrets. */
export function ociService(
  d: { config: Pick<Config, "ociArtifactMaxBytes" | "repoServerTimeoutSeconds">; env: Env },
  credentials: CredentialsLookup,
): RegistryOciReader {
  const timeout = d.config.repoServerTimeoutSeconds;
  return new RegistryOciReader({
    credentials,
    tlsCertsDir: gitHostFiles(d.env).tlsCertsDir,
    env: d.env,
    timeoutMs: timeout > 0 ? timeout * 1000 : DEFAULT_REGISTRY_TIMEOUT_MS,
    maxArtifactBytes: d.config.ociArtifactMaxBytes,
    maxArtifactSetting: "--oci-artifact-max-bytes",
  });
}

/** The reader of the offline commands (`appset generate`, the rollout preview): the default limits. */
export function offlineOciReader(env: Env, credentials: CredentialsLookup): RegistryOciReader {
  return ociService({ config: { ociArtifactMaxBytes: DEFAULT_OCI_ARTIFACT_MAX_BYTES, repoServerTimeoutSeconds: 0 }, env }, credentials);
}
