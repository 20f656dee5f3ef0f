import { describe, expect, it } from "vitest";
import type { Application } from "../api/application.js";
import type { AppProjectSpec } from "../api/appproject.js";
import { impersonationDecision, serviceAccountToImpersonate } from "./impersonation.js";

const SERVER = "https://cluster-api.example.com";
type Accounts = NonNullable<AppProjectSpec["destinationServiceAccounts"]>;

/** An Application in `appNamespace` deploying to `destNamespace` of SERVER. */
function app(destNamespace: string, appNamespace = "argocd"): Pick<Application, "metadata" | "spec"> {
  return {
    metadata: { name: "app", namespace: appNamespace },
    spec: { project: "proj", destination: { server: SERVER, namespace: destNamespace } },
  };
}

describe("serviceAccountToImpersonate (the account a sync impersonates)", () => {
  it.each([
    // accounts: the project's destinationServiceAccounts
    // destNamespace: the Application's destination namespace
    // appNamespace: the Application's own namespace
    // expected: the account, the error, or neither
    {
      name: "a matching server and namespace give the account in the destination namespace",
      accounts: [{ server: SERVER, namespace: "dest-ns", defaultServiceAccount: "test-sa" }],
      destNamespace: "dest-ns",
      appNamespace: "argocd",
      expected: { account: "system:serviceaccount:dest-ns:test-sa" },
    },
    {
      name: "globs match any server and namespace",
      accounts: [{ server: "*", namespace: "*", defaultServiceAccount: "test-sa" }],
      destNamespace: "any-ns",
      appNamespace: "argocd",
      expected: { account: "system:serviceaccount:any-ns:test-sa" },
    },
    {
      name: "an account written with its namespace keeps that namespace",
      accounts: [{ server: SERVER, namespace: "dest-ns", defaultServiceAccount: "other-ns:deploy-sa" }],
      destNamespace: "dest-ns",
      appNamespace: "argocd",
      expected: { account: "system:serviceaccount:other-ns:deploy-sa" },
    },
    {
      name: "an empty destination namespace takes the Application's namespace",
      accounts: [{ server: "*", namespace: "", defaultServiceAccount: "test-sa" }],
      destNamespace: "",
      appNamespace: "app-ns",
      expected: { account: "system:serviceaccount:app-ns:test-sa" },
    },
    {
      name: "no matching entry gives no account",
      accounts: [{ server: "https://other-server.com", namespace: "other-ns", defaultServiceAccount: "test-sa" }],
      destNamespace: "dest-ns",
      appNamespace: "argocd",
      expected: {},
    },
    { name: "no entries give no account", accounts: [], destNamespace: "dest-ns", appNamespace: "argocd", expected: {} },
    {
      name: "an account with a forbidden character is an error",
      accounts: [{ server: "*", namespace: "*", defaultServiceAccount: "bad*sa" }],
      destNamespace: "dest-ns",
      appNamespace: "argocd",
      expected: { error: "default service account contains invalid chars 'bad*sa'" },
    },
    {
      name: "a blank account is an error",
      accounts: [{ server: "*", namespace: "*", defaultServiceAccount: "  " }],
      destNamespace: "dest-ns",
      appNamespace: "argocd",
      expected: { error: "default service account contains invalid chars '  '" },
    },
    {
      name: "a server pattern that does not compile is an error",
      accounts: [{ server: "[", namespace: "dest-ns", defaultServiceAccount: "test-sa" }],
      destNamespace: "dest-ns",
      appNamespace: "argocd",
      expected: { error: "invalid glob pattern for destination server: glob: syntax error at 1: unexpected end of input" },
    },
    {
      name: "a namespace pattern that does not compile is an error",
      accounts: [{ server: "*", namespace: "[", defaultServiceAccount: "test-sa" }],
      destNamespace: "dest-ns",
      appNamespace: "argocd",
      expected: { error: "invalid glob pattern for destination namespace: glob: syntax error at 1: unexpected end of input" },
    },
    {
      name: "the first matching entry wins",
      accounts: [
        { server: "*", namespace: "dest-ns", defaultServiceAccount: "first-sa" },
        { server: "*", namespace: "*", defaultServiceAccount: "second-sa" },
      ],
      destNamespace: "dest-ns",
      appNamespace: "argocd",
      expected: { account: "system:serviceaccount:dest-ns:first-sa" },
    },
  ] satisfies Array<{ name: string; accounts: Accounts; destNamespace: string; appNamespace: string; expected: object }>)(
    "$name",
    ({ accounts, destNamespace, appNamespace, expected }) => {
      const project = { spec: { destinationServiceAccounts: accounts } };
      expect(serviceAccountToImpersonate(project, app(destNamespace, appNamespace), { server: SERVER })).toEqual(expected);
    },
  );
});

describe("impersonationDecision (what a sync does about impersonation)", () => {
  const none = { spec: { destinationServiceAccounts: [{ server: "https://elsewhere", namespace: "*", defaultServiceAccount: "sa" }] } };

  it("impersonates the derived account", () => {
    const project = { spec: { destinationServiceAccounts: [{ server: "*", namespace: "*", defaultServiceAccount: "sa" }] } };
    expect(impersonationDecision({ project, app: app("web"), destinationCluster: { server: SERVER }, enforced: true })).toEqual({
      user: "system:serviceaccount:web:sa",
    });
  });

  it("ends the operation when no account matches and impersonation is enforced", () => {
    expect(impersonationDecision({ project: none, app: app("web"), destinationCluster: { server: SERVER }, enforced: true })).toEqual({
      operationError: `no matching service account found for destination server ${SERVER} and namespace web`,
    });
  });

  it("goes on as the controller when no account matches and impersonation is not enforced", () => {
    expect(impersonationDecision({ project: none, app: app("web"), destinationCluster: { server: SERVER }, enforced: false })).toEqual({});
  });

  it("ends the operation when the account cannot be derived", () => {
    const project = { spec: { destinationServiceAccounts: [{ server: "*", namespace: "*", defaultServiceAccount: "a/b" }] } };
    expect(impersonationDecision({ project, app: app("web"), destinationCluster: { server: SERVER }, enforced: false })).toEqual({
      operationError: "failed to derive service account to impersonate: default service account contains invalid chars 'a/b'",
    });
  });
});
