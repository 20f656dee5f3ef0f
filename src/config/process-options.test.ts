import { describe, expect, it } from "vitest";
import { parseConfig, type Config, type Env } from "./config.js";
import { deploymentEnv } from "./reference.js";

function config(env: Env): { config: Config; warnings: string[] } {
  const r = parseConfig([], env);
  if (r.kind !== "config") throw new Error(`expected a config, got ${JSON.stringify(r)}`);
  return r;
}

describe("Argo CD's process-wide settings", () => {
  it("default to submodules on, no timestamp layout, no TXT lookups and Argo CD's profiler file", () => {
    expect(config({}).config).toMatchObject({
      gitSubmodules: true,
      logFormatTimestamp: "",
      grpcEnableTxtServiceConfig: false,
      profilerFilePath: "/home/argocd/params/profiler.enabled",
    });
  });

  it.each([
    { env: { ARGOCD_GIT_MODULES_ENABLED: "false" }, key: "gitSubmodules", value: false, warnings: [] },
    { env: { ARGOCD_GIT_MODULES_ENABLED: "FALSE" }, key: "gitSubmodules", value: false, warnings: [] },
    {
      env: { ARGOCD_GIT_MODULES_ENABLED: "no" },
      key: "gitSubmodules",
      value: true,
      warnings: ['ARGOCD_GIT_MODULES_ENABLED: invalid boolean "no"; using the default true'],
    },
    {
      env: { ARGOCD_LOG_FORMAT_TIMESTAMP: "2006-01-02T15:04:05.000Z07:00" },
      key: "logFormatTimestamp",
      value: "2006-01-02T15:04:05.000Z07:00",
      warnings: [],
    },
    { env: { ARGOCD_ENABLE_PROFILER_FILE_PATH: "/etc/p" }, key: "profilerFilePath", value: "/etc/p", warnings: [] },
    { env: { GRPC_ENABLE_TXT_SERVICE_CONFIG: "true" }, key: "grpcEnableTxtServiceConfig", value: true, warnings: [] },
  ])("read $key from $env", ({ env, key, value, warnings }) => {
    const r = config(env);
    expect({ value: r.config[key as keyof Config], warnings: r.warnings }).toEqual({ value, warnings });
  });

  it("are mapped from argocd-cmd-params-cm where Argo CD's install maps them; the profiler's key is a mounted file", () => {
    const names = [
      "ARGOCD_GIT_MODULES_ENABLED",
      "ARGOCD_LOG_FORMAT_TIMESTAMP",
      "GRPC_ENABLE_TXT_SERVICE_CONFIG",
      "ARGOCD_ENABLE_PROFILER_FILE_PATH",
    ];
    const mapped = deploymentEnv().filter((e) => names.includes(e.name));
    expect(mapped.map((e) => [e.name, e.valueFrom.configMapKeyRef.key])).toEqual([
      ["ARGOCD_GIT_MODULES_ENABLED", "applicationsetcontroller.enable.git.submodule"],
      ["ARGOCD_LOG_FORMAT_TIMESTAMP", "log.format.timestamp"],
      ["GRPC_ENABLE_TXT_SERVICE_CONFIG", "applicationsetcontroller.grpc.enable.txt.service.config"],
    ]);
  });
});
