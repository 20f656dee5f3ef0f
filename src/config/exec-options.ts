/**
 * Argo CD's environment settings of its Git client and of the programs it runs (`util/git`,
 * `util/exec`): how often a failing `git ls-remote` is tried and how long it waits between tries,
 * the time limit of one ls-remote, and the time limit of one Helm or Kustomize run. Environment
 * only, as in Argo CD, whose manifests map no `argocd-cmd-params-cm` key to them. Data only.
 */
import { argo, MAX_INT32, type OptionDef } from "./option-def.js";

const DAY_MS = 24 * 3_600_000;

export const EXEC_OPTIONS: readonly OptionDef[] = [
  argo({
    key: "gitAttempts",
    env: "ARGOCD_GIT_ATTEMPTS_COUNT",
    kind: "int",
    default: 1,
    min: 1,
    max: 100,
    description: "How many times a `git ls-remote` (the resolution of a revision) is tried before its failure is reported; 1 tries once.",
  }),
  argo({
    key: "gitRetryDurationMs",
    env: "ARGOCD_GIT_RETRY_DURATION",
    kind: "duration",
    default: 250,
    min: 0,
    max: DAY_MS,
    description:
      "The wait before the first retry of an ls-remote that failed on a time limit, a dropped connection or an HTTP 429 or 5xx answer; each further wait is the factor times longer. Other failures are retried at once, as Argo CD retries them.",
  }),
  argo({
    key: "gitRetryFactor",
    env: "ARGOCD_GIT_RETRY_FACTOR",
    kind: "int",
    default: 2,
    min: 0,
    max: MAX_INT32,
    description: "What each wait between ls-remote tries is multiplied by.",
  }),
  argo({
    key: "gitRetryMaxDurationMs",
    env: "ARGOCD_GIT_RETRY_MAX_DURATION",
    kind: "duration",
    default: 5_000,
    min: 0,
    max: DAY_MS,
    description: "The longest wait between ls-remote tries (0: no cap).",
  }),
  argo({
    key: "gitRequestTimeoutMs",
    env: "ARGOCD_GIT_REQUEST_TIMEOUT",
    kind: "duration",
    default: 15_000,
    min: 0,
    max: DAY_MS,
    description:
      "Time limit of one `git ls-remote`, as Argo CD bounds its Git HTTP requests (0: none); `--repo-server-timeout-seconds` still bounds it when shorter. Fetches keep that limit alone.",
  }),
  argo({
    key: "execTimeoutMs",
    env: "ARGOCD_EXEC_TIMEOUT",
    kind: "duration",
    default: 90_000,
    min: 1,
    max: DAY_MS,
    description: "Time limit of one `helm` or `kustomize` run of the sync engine; past it the program is killed and the sync fails.",
  }),
];
