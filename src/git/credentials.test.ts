import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { encodeSecretData, type Secret } from "../api/index.js";
import { credentialsFromSecrets, credentialTarget, underPrefix } from "./credentials.js";

const URL = "https://git.example.com/org/repo.git";

function secret(name: string, type: string, data: Record<string, string>): Secret {
  return {
    apiVersion: "v1",
    kind: "Secret",
    metadata: { name, namespace: "argocd", labels: { "argocd.argoproj.io/secret-type": type } },
    data: encodeSecretData(data),
  };
}

const globalRepo = secret("global", "repository", { url: URL, username: "global", password: "g" });
const teamA = secret("team-a", "repository", { url: URL, username: "team-a", password: "a", project: "team-a" });
const teamB = secret("team-b", "repository", { url: `${URL}/`, username: "team-b", password: "b", project: "team-b" });
const template = secret("creds", "repo-creds", { url: "https://git.example.com/org", username: "template", password: "t" });
const scopedTemplate = secret("creds-a", "repo-creds", {
  url: "https://git.example.com/org",
  username: "template-a",
  password: "ta",
  project: "team-a",
});
const otherCase = secret("other-case", "repository", { url: "HTTPS://Git.Example.com/Org/Repo", username: "other-case", password: "o" });
const bareRepo = secret("bare", "repository", { url: URL, insecure: "true" });

describe("choosing repository credentials for a project", () => {
  it.each([
    // name; Secrets; project asked for; expected username (undefined: anonymous)
    { name: "a templated project sees only the unscoped Secret", secrets: [teamA, globalRepo, teamB], project: undefined, want: "global" },
    { name: "an empty project is the same as a templated one", secrets: [teamA, globalRepo], project: "", want: "global" },
    { name: "a project's own scoped Secret wins over the unscoped one", secrets: [globalRepo, teamA], project: "team-a", want: "team-a" },
    { name: "the scoped Secret wins whatever the listing order", secrets: [teamA, globalRepo], project: "team-a", want: "team-a" },
    {
      name: "a project without a scoped Secret falls back to the unscoped one",
      secrets: [teamA, globalRepo],
      project: "team-c",
      want: "global",
    },
    { name: "a Secret scoped to another project never applies", secrets: [teamA], project: "team-b", want: undefined },
    { name: "a scoped Secret never applies to a templated project", secrets: [teamA], project: undefined, want: undefined },
    { name: "URLs compare in lower case and without .git, as in Argo CD", secrets: [otherCase], project: undefined, want: "other-case" },
    { name: "a trailing slash makes another URL, as in Argo CD", secrets: [teamB], project: "team-b", want: undefined },
    {
      name: "when no repository Secret applies, a repo-creds template does",
      secrets: [teamA, template],
      project: "team-b",
      want: "template",
    },
    { name: "repo-creds templates are global, as in Argo CD", secrets: [scopedTemplate], project: undefined, want: "template-a" },
    {
      name: "a repository Secret without credentials takes them from the template",
      secrets: [bareRepo, template],
      project: undefined,
      want: "template",
    },
  ])("$name", async ({ secrets, project, want }) => {
    const creds = await credentialsFromSecrets(secrets)(URL, project);
    expect(creds?.username).toBe(want);
  });

  it.each<{ name: string; data: Record<string, string>; want: true | undefined }>([
    { name: "insecure", data: { insecure: "true" }, want: true },
    { name: "the older insecureIgnoreHostKey, as Argo CD's IsInsecure reads it", data: { insecureIgnoreHostKey: "true" }, want: true },
    { name: "neither", data: { insecureIgnoreHostKey: "false" }, want: undefined },
  ])("skips host key and TLS checks on $name", async ({ data, want }) => {
    const creds = await credentialsFromSecrets([secret("ssh", "repository", { url: URL, sshPrivateKey: "key", ...data })])(URL);
    expect(creds?.insecure).toBe(want);
  });

  it("keeps the flags of a repository Secret that borrows a template's credentials", async () => {
    await expect(credentialsFromSecrets([bareRepo, template])(URL)).resolves.toEqual({
      username: "template",
      password: "t",
      insecure: true,
    });
  });

  it("never hands a Secret scoped to one project to any other project", async () => {
    await fc.assert(
      fc.asyncProperty(fc.option(fc.string({ maxLength: 8 }), { nil: undefined }), async (project) => {
        const creds = await credentialsFromSecrets([teamA])(URL, project);
        expect(creds === undefined || project === "team-a").toBe(true);
      }),
    );
  });
});

describe("the repository Secret keys beyond username and password", () => {
  it("reads the TLS client certificate, proxy, forced basic auth and GitHub App keys", async () => {
    const s = secret("full", "repository", {
      url: URL,
      tlsClientCertData: "CERT",
      tlsClientCertKey: "KEY",
      proxy: "http://proxy:3128",
      noProxy: "internal.example.com",
      forceHttpBasicAuth: "true",
      githubAppID: "12",
      githubAppInstallationID: "34",
      githubAppPrivateKey: "PEM",
      githubAppEnterpriseBaseUrl: "https://ghe.example.com/api/v3",
    });
    await expect(credentialsFromSecrets([s])(URL)).resolves.toEqual({
      tlsClientCertData: "CERT",
      tlsClientCertKey: "KEY",
      proxy: "http://proxy:3128",
      noProxy: "internal.example.com",
      forceHttpBasicAuth: true,
      githubApp: { appId: "12", installationId: "34", privateKey: "PEM", enterpriseBaseUrl: "https://ghe.example.com/api/v3" },
    });
  });

  it.each([
    { name: "a client certificate", data: { tlsClientCertData: "CERT", tlsClientCertKey: "KEY" } },
    { name: "a GitHub App", data: { githubAppID: "1", githubAppPrivateKey: "PEM" } },
  ] as { name: string; data: Record<string, string> }[])("counts $name as credentials: no template is consulted", async ({ data }) => {
    const creds = await credentialsFromSecrets([secret("r", "repository", { url: URL, ...data }), template])(URL);
    expect(creds?.username).toBeUndefined();
  });

  it("a proxy alone is no credential: the template's are used, the proxy kept", async () => {
    const creds = await credentialsFromSecrets([secret("r", "repository", { url: URL, proxy: "http://p:1" }), template])(URL);
    expect(creds).toMatchObject({ username: "template", proxy: "http://p:1" });
  });
});

describe("repo-creds prefixes end at a path boundary", () => {
  it.each([
    // repository URL; whether the template for https://git.example.com/org applies
    { url: "https://git.example.com/org/repo", applies: true },
    { url: "https://git.example.com/org", applies: true },
    { url: "https://git.example.com/org-evil/repo", applies: false },
    { url: "https://git.example.com/organisation/repo", applies: false },
  ])("$url: $applies", async ({ url, applies }) => {
    const creds = await credentialsFromSecrets([template])(url);
    expect(creds?.username === "template").toBe(applies);
  });

  it.each([
    { url: "a/b", prefix: "a/", want: true },
    { url: "git@h/o/r", prefix: "git@h/o", want: true },
    { url: "git@h/org/r", prefix: "git@h/o", want: false },
    { url: "x", prefix: "y", want: false },
    { url: "http://127.0.0.1:8080/r", prefix: "http://127.0.0.1", want: true },
    { url: "http://127.0.0.1.evil/r", prefix: "http://127.0.0.1", want: false },
    { url: "https://h/org:x/r", prefix: "https://h/org", want: false },
  ])("underPrefix($url, $prefix) = $want", ({ url, prefix, want }) => {
    expect(underPrefix(url, prefix)).toBe(want);
  });
});

describe("credentialTarget (whom the credential helper answers)", () => {
  it.each([
    { url: "https://Git.Example/o/r", want: { protocol: "https", host: "git.example" } },
    { url: "http://127.0.0.1:3000/r.git", want: { protocol: "http", host: "127.0.0.1:3000" } },
    { url: "git@git.example:o/r", want: undefined },
    { url: "ssh://git@git.example/o/r", want: undefined },
  ])("$url", ({ url, want }) => {
    expect(credentialTarget(url)).toEqual(want);
  });
});
