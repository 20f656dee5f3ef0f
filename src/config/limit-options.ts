/**
 * Size limits on what servers a tenant may point the controller at send back (docs/configuration.md#reference):
 * SCM provider answers and pages, plugin generator answers, Helm repository indexes, the files a
 * Git files generator reads and the artifacts an OCI generator reads. Settings this controller adds to Argo CD's, except the Helm index
 * limits of Helm, whose defaults are the repo-server's `--helm-registry-max-index-size` and
 * `--helm-manifest-max-extracted-size` (1G each). Data only.
 */
import { ACS, CM, MAX_INT32, type OptionDef } from "./option-def.js";

const MIB = 1_048_576;

/** Default most bytes of an OCI generator's artifact. */
export const DEFAULT_OCI_ARTIFACT_MAX_BYTES = 64 * MIB;

/** One byte or count limit of ours: an int from 1, named alike as flag, environment and ConfigMap key. */
function limit(key: string, flag: string, def: number, description: string): OptionDef {
  const words = flag.split("-");
  return {
    key,
    flag,
    env: `${ACS}${words.join("_").toUpperCase()}`,
    cmKey: `${CM}${words.join(".")}`,
    kind: "int",
    default: def,
    min: 1,
    description,
    origin: "appset",
  };
}

/** The size limits. */
export const LIMIT_OPTIONS: readonly OptionDef[] = [
  limit(
    "scmMaxResponseBytes",
    "scm-max-response-bytes",
    10 * MIB,
    "Largest answer body, in bytes, read from an SCM provider (SCM Provider and Pull Request generators); reading stops there and the generator fails.",
  ),
  {
    ...limit(
      "scmMaxPages",
      "scm-max-pages",
      1000,
      "Most pages one SCM provider listing may follow; more fails the generator. A next page on another origin than the first is never followed.",
    ),
    max: MAX_INT32,
  },
  limit(
    "pluginMaxResponseBytes",
    "plugin-max-response-bytes",
    10 * MIB,
    "Largest answer body, in bytes, read from a plugin generator's service; reading stops there and the generator fails.",
  ),
  limit(
    "helmIndexMaxBytes",
    "helm-index-max-bytes",
    1_000_000_000,
    "Largest Helm repository index.yaml, in bytes, the sync engine reads (Argo CD's repo-server default, 1G); reading stops there and the sync fails.",
  ),
  limit(
    "helmChartMaxBytes",
    "helm-chart-max-bytes",
    1_000_000_000,
    "Most bytes a Helm chart pulled by the sync engine may hold once unpacked (Argo CD's repo-server default, 1G); a larger one fails the sync and is not kept.",
  ),
  limit(
    "gitFileMaxBytes",
    "git-file-max-bytes",
    16 * MIB,
    "Largest file, in bytes, a Git files generator reads; a larger matched file fails the generator.",
  ),
  limit(
    "gitFilesMaxBytes",
    "git-files-max-bytes",
    64 * MIB,
    "Most bytes of matched files one Git files generator reads in one pass; more fails the generator.",
  ),
  limit(
    "ociArtifactMaxBytes",
    "oci-artifact-max-bytes",
    DEFAULT_OCI_ARTIFACT_MAX_BYTES,
    "Most bytes an OCI artifact may hold, compressed and unpacked (it is read in memory), for the OCI generator and the sync engine's OCI sources; a larger one fails the read.",
  ),
];
