/**
 * Sync impersonation, tried as an attacker would: a real `appset sync-engine` process runs with the
 * administrator's rights, but argocd-cm turns impersonation on, so every write of a sync must reach
 * the apiserver as the service account team A's project names for its namespace — an account that
 * may only manage ConfigMaps there. A ValidatingAdmissionPolicy lets nobody but that account write
 * or delete ConfigMaps in the namespace, so a write made with the engine's own rights is caught too. What
 * the account may not do (a Secret the project permits) is refused by the apiserver's RBAC, and a
 * destination no `destinationServiceAccounts` entry matches is not synced at all (enforcement).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Finalizer } from "../../src/api/index.js";
import { isForbidden, isInvalid, resources, type ResourceDescriptor } from "../../src/kube/index.js";
import { ImpersonationMessage } from "../../src/project/index.js";
import { eventually } from "../e2e/support/controller.js";
import { configMap, IN_CLUSTER, Tenancy } from "./support/tenancy.js";

/** A `v1` resource of `group`. */
const v1 = (group: string, plural: string, kind: string, namespaced: boolean): ResourceDescriptor => ({
  group,
  version: "v1",
  plural,
  kind,
  namespaced,
});
const Roles = v1("rbac.authorization.k8s.io", "roles", "Role", true);
const RoleBindings = v1("rbac.authorization.k8s.io", "rolebindings", "RoleBinding", true);
const ServiceAccounts = v1("", "serviceaccounts", "ServiceAccount", true);
const Policies = v1("admissionregistration.k8s.io", "validatingadmissionpolicies", "ValidatingAdmissionPolicy", false);
const PolicyBindings = v1("admissionregistration.k8s.io", "validatingadmissionpolicybindings", "ValidatingAdmissionPolicyBinding", false);

const world = new Tenancy();
const account = `system:serviceaccount:${world.teamATarget}:deployer`;
const policyName = `sec-only-deployer-${world.run}`;
let configsRepo: string;
let secretRepo: string;
let unmatchedRepo: string;

/** The account that may only manage ConfigMaps in team A's namespace. */
async function createDeployer(): Promise<void> {
  const namespace = world.teamATarget;
  await world.admin.create(ServiceAccounts, { metadata: { name: "deployer", namespace } });
  await world.admin.create(Roles, {
    apiVersion: "rbac.authorization.k8s.io/v1",
    kind: "Role",
    metadata: { name: "configmaps-only", namespace },
    rules: [{ apiGroups: [""], resources: ["configmaps"], verbs: ["get", "list", "watch", "create", "update", "patch", "delete"] }],
  });
  await world.admin.create(RoleBindings, {
    apiVersion: "rbac.authorization.k8s.io/v1",
    kind: "RoleBinding",
    metadata: { name: "deployer", namespace },
    roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: "configmaps-only" },
    subjects: [{ kind: "ServiceAccount", name: "deployer", namespace }],
  });
}

/** Only the account may write or delete ConfigMaps in team A's namespace; waits until the policy denies the administrator. */
async function onlyTheDeployerWrites(): Promise<void> {
  await world.admin.create(Policies, {
    apiVersion: "admissionregistration.k8s.io/v1",
    kind: "ValidatingAdmissionPolicy",
    metadata: { name: policyName },
    spec: {
      failurePolicy: "Fail",
      matchConstraints: {
        resourceRules: [{ apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE", "UPDATE", "DELETE"], resources: ["configmaps"] }],
      },
      validations: [
        {
          // The garbage collector still removes the finalizers of an object being deleted.
          expression: `request.userInfo.username == '${account}' || (request.operation == 'UPDATE' && has(oldObject.metadata.deletionTimestamp))`,
          message: "only the deployer writes here",
        },
      ],
    },
  });
  await world.admin.create(PolicyBindings, {
    apiVersion: "admissionregistration.k8s.io/v1",
    kind: "ValidatingAdmissionPolicyBinding",
    metadata: { name: policyName },
    spec: {
      policyName,
      validationActions: ["Deny"],
      matchResources: { namespaceSelector: { matchLabels: { "kubernetes.io/metadata.name": world.teamATarget } } },
    },
  });
  await eventually("the admission policy to deny the administrator", async () => {
    try {
      await world.admin.create(resources.ConfigMaps, { metadata: { name: "probe", namespace: world.teamATarget } }, { dryRun: true });
      return undefined;
    } catch (err) {
      if (isForbidden(err) || isInvalid(err)) return true;
      throw err;
    }
  });
}

beforeAll(async () => {
  await world.setUp();
  await world.admin.create(resources.ConfigMaps, {
    metadata: { name: "argocd-cm", namespace: world.argocd, labels: { "app.kubernetes.io/part-of": "argocd" } },
    data: { "application.sync.impersonation.enabled": "true" },
  });
  await createDeployer();
  await onlyTheDeployerWrites();
  configsRepo = world.repo({ "a.yaml": configMap("settings-a"), "b.yaml": configMap("settings-b") });
  secretRepo = world.repo({
    "cm.yaml": configMap("with-secret"),
    "secret.yaml": `apiVersion: v1\nkind: Secret\nmetadata:\n  name: sec-stolen\nstringData:\n  token: x\n`,
  });
  unmatchedRepo = world.repo({ "cm.yaml": configMap("unmatched") });
  // The project permits Secrets and team B's namespace too: only the account's RBAC and the
  // missing service-account entry stand in the way.
  await world.project("team-a", {
    sourceRepos: [configsRepo, secretRepo, unmatchedRepo],
    sourceNamespaces: [world.teamA],
    destinations: [
      { server: IN_CLUSTER, namespace: world.teamATarget },
      { server: IN_CLUSTER, namespace: world.teamBTarget },
    ],
    destinationServiceAccounts: [{ server: IN_CLUSTER, namespace: world.teamATarget, defaultServiceAccount: "deployer" }],
  });
  await world.startEngine();
}, 180_000);

afterAll(async () => {
  await world.admin.delete(PolicyBindings, { name: policyName }).catch(() => undefined);
  await world.admin.delete(Policies, { name: policyName }).catch(() => undefined);
  await world.tearDown();
});

describe("a sync with impersonation writes as the project's service account", () => {
  it("syncs ConfigMaps as the service account, which alone may write them", async () => {
    const app = await world.teamASync("configs", configsRepo);
    expect(app.status?.operationState).toMatchObject({ phase: "Succeeded" });
    for (const name of ["settings-a", "settings-b"]) {
      expect(await world.exists(resources.ConfigMaps, { namespace: world.teamATarget, name })).toBe(true);
    }
  });

  it("cannot create a Secret the project permits but the service account's RBAC does not", async () => {
    const app = await world.teamASync("secret", secretRepo);
    const state = app.status?.operationState;
    expect(state?.phase).toBe("Failed");
    const secret = state?.syncResult?.resources?.find((r) => r.kind === "Secret");
    expect(secret).toMatchObject({ status: "SyncFailed" });
    expect(secret?.message).toContain(`secrets "sec-stolen" is forbidden: User "${account}" cannot`);
    expect(await world.exists(resources.Secrets, { namespace: world.teamATarget, name: "sec-stolen" })).toBe(false);
  });

  it("ends a sync to a destination no service-account entry matches in Error, with nothing applied", async () => {
    const app = await world.teamASync("unmatched", unmatchedRepo, world.teamBTarget);
    expect(app.status?.operationState).toMatchObject({
      phase: "Error",
      message: ImpersonationMessage.noMatch(IN_CLUSTER, world.teamBTarget),
    });
    expect(await world.exists(resources.ConfigMaps, { namespace: world.teamBTarget, name: "unmatched" })).toBe(false);
  });

  it("deletes a deleted Application's ConfigMaps as the service account", async () => {
    const key = { namespace: world.teamA, name: "configs" };
    await world.admin.patch(resources.Applications, key, { type: "merge", body: { metadata: { finalizers: [Finalizer.Resources] } } });
    await world.admin.delete(resources.Applications, key);
    await eventually(
      "the Application to be gone",
      async () => ((await world.exists(resources.Applications, key)) ? undefined : true),
      30_000,
    );
    for (const name of ["settings-a", "settings-b"]) {
      expect(await world.exists(resources.ConfigMaps, { namespace: world.teamATarget, name })).toBe(false);
    }
  });
});
