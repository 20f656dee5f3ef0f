import { describe, expect, it } from "vitest";
import { toolBaseEnv } from "./tool-env.js";

describe("toolBaseEnv", () => {
  it.each([
    // inherited: this process's environment; env: what helm and kustomize inherit of it
    { name: "nothing from nothing", inherited: {}, env: {} },
    {
      name: "PATH, HOME, TMPDIR and the locale",
      inherited: { PATH: "/bin", HOME: "/home/argocd", TMPDIR: "/tmp", LANG: "C.UTF-8", LC_ALL: "C", TZ: "UTC" },
      env: { PATH: "/bin", HOME: "/home/argocd", TMPDIR: "/tmp", LANG: "C.UTF-8", LC_ALL: "C", TZ: "UTC" },
    },
    {
      name: "the proxies in both cases, and the trust store",
      inherited: { HTTPS_PROXY: "http://p:3128", no_proxy: ".svc", SSL_CERT_FILE: "/etc/ca.pem" },
      env: { HTTPS_PROXY: "http://p:3128", no_proxy: ".svc", SSL_CERT_FILE: "/etc/ca.pem" },
    },
    {
      name: "no token, cloud key, kubeconfig or Helm setting of the engine's own",
      inherited: {
        PATH: "/bin",
        GITHUB_TOKEN: "ghp_x",
        GITLAB_TOKEN: "glpat-x",
        AWS_SECRET_ACCESS_KEY: "k",
        KUBECONFIG: "/etc/kube",
        KUBERNETES_SERVICE_HOST: "10.0.0.1",
        HELM_REGISTRY_CONFIG: "/r.json",
        ARGOCD_APPLICATIONSET_CONTROLLER_REPO_SERVER: "repo:8081",
      },
      env: { PATH: "/bin" },
    },
    { name: "an unset variable is left out", inherited: { PATH: undefined, HOME: "/h" }, env: { HOME: "/h" } },
  ])("passes $name", ({ inherited, env }) => {
    expect(toolBaseEnv(inherited)).toEqual(env);
  });
});
