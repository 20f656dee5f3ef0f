import { describe, expect, it } from "vitest";
import {
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
} from "./environment.js";

describe("waveDelayMs", () => {
  it.each([
    // name; ARGOCD_SYNC_WAVE_DELAY; the delay in ms
    { name: "unset means no delay", raw: undefined, ms: 0 },
    { name: "empty means no delay", raw: "", ms: 0 },
    { name: "seconds become milliseconds", raw: "2", ms: 2000 },
    { name: "fractions are honoured", raw: "0.5", ms: 500 },
    { name: "a negative value means no delay", raw: "-3", ms: 0 },
    { name: "garbage means no delay", raw: "soon", ms: 0 },
  ])("$name", ({ raw, ms }) => {
    expect(waveDelayMs(raw === undefined ? {} : { ARGOCD_SYNC_WAVE_DELAY: raw })).toBe(ms);
  });
});

describe("syncDeadlineMs", () => {
  it.each([
    // name; APPSET_SYNC_DEADLINE_SECONDS; the deadline in ms
    { name: "unset means no deadline", raw: undefined, ms: undefined },
    { name: "empty means no deadline", raw: " ", ms: undefined },
    { name: "seconds become milliseconds", raw: "600", ms: 600_000 },
    { name: "zero means no deadline", raw: "0", ms: undefined },
    { name: "garbage means no deadline", raw: "10m", ms: undefined },
  ])("$name", ({ raw, ms }) => {
    expect(syncDeadlineMs(raw === undefined ? {} : { APPSET_SYNC_DEADLINE_SECONDS: raw })).toBe(ms);
  });
});

describe("selfHealBackoff", () => {
  const P = "ARGOCD_APPLICATION_CONTROLLER_SELF_HEAL_";
  it.each([
    { name: "Argo CD's defaults", env: {}, want: { initialMs: 2_000, factor: 3, capMs: 300_000 } },
    {
      name: "each variable",
      env: { [`${P}BACKOFF_TIMEOUT_SECONDS`]: "5", [`${P}BACKOFF_FACTOR`]: "2", [`${P}BACKOFF_CAP_SECONDS`]: "60" },
      want: { initialMs: 5_000, factor: 2, capMs: 60_000 },
    },
    {
      name: "an invalid value keeps the default",
      env: { [`${P}BACKOFF_FACTOR`]: "x" },
      want: { initialMs: 2_000, factor: 3, capMs: 300_000 },
    },
    {
      name: "a back-off timeout of 0 waits the fixed self-heal timeout",
      env: { [`${P}BACKOFF_TIMEOUT_SECONDS`]: "0", [`${P}TIMEOUT_SECONDS`]: "5" },
      want: { initialMs: 5_000, factor: 1, capMs: 5_000, fixed: true },
    },
  ])("$name", ({ env, want }) => {
    expect(selfHealBackoff(env)).toEqual(want);
  });
});

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

describe("githubAppCredsExpirationMs (ARGOCD_GITHUB_APP_CREDS_EXPIRATION_DURATION)", () => {
  it.each([
    // name; the variable; minutes
    { name: "unset keeps Argo CD's 60 minutes", raw: undefined, minutes: 60 },
    { name: "a whole number of minutes is taken", raw: "15", minutes: 15 },
    { name: "surrounding blanks are ignored", raw: " 90 ", minutes: 90 },
    { name: "empty keeps the default", raw: "", minutes: 60 },
    { name: "0 keeps the default", raw: "0", minutes: 60 },
    { name: "a negative number keeps the default", raw: "-5", minutes: 60 },
    { name: "a Go duration is not minutes: default", raw: "30m", minutes: 60 },
    { name: "a fraction keeps the default", raw: "1.5", minutes: 60 },
  ])("$name", ({ raw, minutes }) => {
    const env = raw === undefined ? {} : { ARGOCD_GITHUB_APP_CREDS_EXPIRATION_DURATION: raw };
    expect(githubAppCredsExpirationMs(env)).toBe(minutes * 60_000);
  });
});

describe("processProxy", () => {
  it("reads the upper-case variables first, then the lower-case ones, as Go does", () => {
    expect(processProxy({})).toEqual({ httpsProxy: "", httpProxy: "", noProxy: "" });
    expect(
      processProxy({ HTTPS_PROXY: "http://a:3128", https_proxy: "http://b:3128", http_proxy: "http://c:3128", no_proxy: ".corp" }),
    ).toEqual({
      httpsProxy: "http://a:3128",
      httpProxy: "http://c:3128",
      noProxy: ".corp",
    });
    expect(processProxy({ NO_PROXY: "", no_proxy: "x" }).noProxy).toBe("x");
  });
});

describe("namespaceFromEnv", () => {
  it.each([
    // name; NAMESPACE; the namespace read
    { name: "unset names none", raw: undefined, want: undefined },
    { name: "set names it", raw: "argo-cd", want: "argo-cd" },
    { name: "empty is taken as given", raw: "", want: "" },
  ])("$name", ({ raw, want }) => {
    expect(namespaceFromEnv(raw === undefined ? {} : { NAMESPACE: raw })).toBe(want);
  });
});

describe("scmEnvTokens", () => {
  it.each([
    { name: "none set, none taken", env: {}, want: {} },
    {
      name: "each provider's variable",
      env: { GITHUB_TOKEN: "gh", GITLAB_TOKEN: "gl", GITEA_TOKEN: "gt" },
      want: { github: "gh", gitlab: "gl", gitea: "gt" },
    },
    { name: "an empty value is no token", env: { GITHUB_TOKEN: "", GITEA_TOKEN: "gt" }, want: { gitea: "gt" } },
    { name: "other variables are not tokens", env: { BITBUCKET_TOKEN: "bb" }, want: {} },
  ])("$name", ({ env, want }) => {
    expect(scmEnvTokens(env)).toEqual(want);
  });
});

describe("awsRegionAndEndpoints", () => {
  it.each([
    // name; environment; region and endpoints expected
    { name: "nothing set means no region or endpoints", env: {}, want: { endpoints: {} } },
    {
      name: "AWS_REGION wins over AWS_DEFAULT_REGION",
      env: { AWS_REGION: "eu-west-1", AWS_DEFAULT_REGION: "us-east-1" },
      want: { region: "eu-west-1", endpoints: {} },
    },
    { name: "AWS_DEFAULT_REGION is the fallback", env: { AWS_DEFAULT_REGION: "us-east-1" }, want: { region: "us-east-1", endpoints: {} } },
    {
      name: "service endpoint variables beat AWS_ENDPOINT_URL",
      env: {
        AWS_ENDPOINT_URL: "http://all",
        AWS_ENDPOINT_URL_CODECOMMIT: "http://cc",
        AWS_ENDPOINT_URL_RESOURCE_GROUPS_TAGGING_API: "http://tag",
      },
      want: { endpoints: { codecommit: "http://cc", tagging: "http://tag", sts: "http://all" } },
    },
    { name: "empty values count as unset", env: { AWS_REGION: "", AWS_ENDPOINT_URL: "" }, want: { endpoints: {} } },
  ])("$name", ({ env, want }) => {
    expect(awsRegionAndEndpoints(env)).toEqual(want);
  });
});

describe("awsChainOptions", () => {
  it.each([
    { name: "nothing set, no options", env: {}, want: {} },
    {
      name: "the profile, shared files, web identity and container settings of the map, and nothing else",
      env: {
        AWS_PROFILE: "ci",
        AWS_SHARED_CREDENTIALS_FILE: "/c",
        AWS_CONFIG_FILE: "/f",
        AWS_WEB_IDENTITY_TOKEN_FILE: "/t",
        AWS_ROLE_ARN: "arn:aws:iam::1:role/r",
        AWS_ROLE_SESSION_NAME: "me",
        AWS_CONTAINER_CREDENTIALS_FULL_URI: "http://169.254.170.23/v1/credentials",
        AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE: "/k",
        AWS_ACCESS_KEY_ID: "AK",
        AWS_CONTAINER_AUTHORIZATION_TOKEN: "",
      },
      want: {
        profile: "ci",
        filepath: "/c",
        configFilepath: "/f",
        webIdentityTokenFile: "/t",
        roleArn: "arn:aws:iam::1:role/r",
        roleSessionName: "me",
        awsContainerCredentialsFullUri: "http://169.254.170.23/v1/credentials",
        awsContainerAuthorizationTokenFile: "/k",
      },
    },
    {
      name: "the relative container URI and the token itself",
      env: { AWS_CONTAINER_CREDENTIALS_RELATIVE_URI: "/v2/creds", AWS_CONTAINER_AUTHORIZATION_TOKEN: "tok" },
      want: { awsContainerCredentialsRelativeUri: "/v2/creds", awsContainerAuthorizationToken: "tok" },
    },
  ])("$name", ({ env, want }) => {
    expect(awsChainOptions(env)).toEqual(want);
  });
});

describe("kubeEnvironment", () => {
  it.each([
    { name: "nothing set, all empty", env: {}, want: { kubeconfig: "", home: "", serviceHost: "", servicePort: "" } },
    {
      name: "KUBECONFIG, HOME and the in-cluster service address",
      env: { KUBECONFIG: "/a:/b", HOME: "/home/me", KUBERNETES_SERVICE_HOST: "10.96.0.1", KUBERNETES_SERVICE_PORT: "443" },
      want: { kubeconfig: "/a:/b", home: "/home/me", serviceHost: "10.96.0.1", servicePort: "443" },
    },
    {
      name: "other variables are not read",
      env: { KUBERNETES_PORT: "tcp://10.96.0.1:443", USERPROFILE: "C:\\me" },
      want: { kubeconfig: "", home: "", serviceHost: "", servicePort: "" },
    },
  ])("$name", ({ env, want }) => {
    expect(kubeEnvironment(env)).toEqual(want);
  });
});
