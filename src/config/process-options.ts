/**
 * Argo CD's process-wide environment settings that the ApplicationSet controller's Deployment maps
 * from `argocd-cmd-params-cm`: Git submodules, the log timestamp layout, gRPC's TXT lookups and the
 * profiler's gate file. Environment only. Data only.
 */
import { argo, CM, type OptionDef } from "./option-def.js";

/** Where Argo CD's install mounts `applicationsetcontroller.profile.enabled` as a file. */
export const DEFAULT_PROFILER_FILE = "/home/argocd/params/profiler.enabled";

export const PROCESS_OPTIONS: readonly OptionDef[] = [
  argo({
    key: "gitSubmodules",
    env: "ARGOCD_GIT_MODULES_ENABLED",
    cmKey: `${CM}enable.git.submodule`,
    kind: "bool",
    default: true,
    description: "Read Git submodules, as a checkout with `git submodule update --init --recursive` has them.",
  }),
  argo({
    key: "logFormatTimestamp",
    env: "ARGOCD_LOG_FORMAT_TIMESTAMP",
    cmKey: "log.format.timestamp",
    kind: "string",
    default: "",
    description:
      "Go time layout of every log line's `time` (in UTC), e.g. `2006-01-02T15:04:05.000Z07:00`. Empty: RFC 3339 seconds (`2006-01-02T15:04:05Z07:00`), as logrus prints them.",
  }),
  argo({
    key: "grpcEnableTxtServiceConfig",
    env: "GRPC_ENABLE_TXT_SERVICE_CONFIG",
    cmKey: `${CM}grpc.enable.txt.service.config`,
    kind: "bool",
    default: false,
    description: "gRPC's DNS TXT service-config lookups. Accepted for compatibility: this controller makes no gRPC calls.",
  }),
  argo({
    key: "profilerFilePath",
    env: "ARGOCD_ENABLE_PROFILER_FILE_PATH",
    kind: "string",
    default: DEFAULT_PROFILER_FILE,
    description:
      "A file whose content `true` turns on `/debug/pprof/` on the metrics address (V8 sampling heap and CPU profiles), read on every request; the install mounts `applicationsetcontroller.profile.enabled` there.",
  }),
];
