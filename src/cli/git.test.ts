import { describe, expect, it } from "vitest";
import { gitHostFiles, gitSubmodulesEnabled, repoOrganisation } from "./git.js";

describe("where the Git service finds host keys and CAs", () => {
  it.each([
    {
      name: "Argo CD's mount points by default",
      env: {},
      want: { knownHostsFile: "/app/config/ssh/ssh_known_hosts", tlsCertsDir: "/app/config/tls" },
    },
    {
      name: "ARGOCD_SSH_DATA_PATH and ARGOCD_TLS_DATA_PATH when set",
      env: { ARGOCD_SSH_DATA_PATH: "/etc/ssh-hosts", ARGOCD_TLS_DATA_PATH: "/etc/tls-certs" },
      want: { knownHostsFile: "/etc/ssh-hosts/ssh_known_hosts", tlsCertsDir: "/etc/tls-certs" },
    },
    {
      name: "empty values as unset",
      env: { ARGOCD_SSH_DATA_PATH: "", ARGOCD_TLS_DATA_PATH: "" },
      want: { knownHostsFile: "/app/config/ssh/ssh_known_hosts", tlsCertsDir: "/app/config/tls" },
    },
  ])("$name", ({ env, want }) => {
    expect(gitHostFiles(env)).toEqual(want);
  });

  it.each([
    ["https://github.com/argoproj/argo-cd.git", "argoproj"],
    ["git@github.com:argoproj/argo-cd.git", "argoproj"],
    ["ssh://git@github.com/org/repo", "org"],
    ["https://github.com/", ""],
  ])("the organisation of %s is %j", (url, org) => {
    expect(repoOrganisation(url)).toBe(org);
  });
});

describe("submodules (ARGOCD_GIT_MODULES_ENABLED)", () => {
  it.each([
    [undefined, true],
    ["", true],
    ["false", false],
    ["FALSE", false],
    ["true", true],
    ["no", true],
  ])("%j reads submodules: %j", (value, want) => {
    expect(gitSubmodulesEnabled(value === undefined ? {} : { ARGOCD_GIT_MODULES_ENABLED: value })).toBe(want);
  });
});
