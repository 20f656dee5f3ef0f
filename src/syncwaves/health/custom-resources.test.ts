import { describe, expect, it } from "vitest";
import type { KubeObject } from "../../kube/index.js";
import type { HealthResult } from "../types.js";
import { hasHealthCheck, resourceHealth } from "./index.js";

/** A custom resource of `apiVersion` and `kind` named `name`, with a spec and status. */
function cr(
  apiVersion: string,
  kind: string,
  parts: { spec?: unknown; status?: unknown; generation?: number; annotations?: Record<string, string> },
): KubeObject {
  return {
    apiVersion,
    kind,
    metadata: {
      name: "x",
      namespace: "ns",
      generation: parts.generation ?? 1,
      ...(parts.annotations ? { annotations: parts.annotations } : {}),
    },
    ...(parts.spec !== undefined ? { spec: parts.spec } : {}),
    ...(parts.status !== undefined ? { status: parts.status } : {}),
  };
}

const ready = (status: string, message: string, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  type: "Ready",
  status,
  message,
  ...extra,
});

interface Row {
  /** What the row shows. */
  readonly name: string;
  /** The live object. */
  readonly o: KubeObject;
  /** Its health as Argo CD's bundled check gives it. */
  readonly want: HealthResult;
}

const ROLLOUT = "argoproj.io/v1alpha1";
const rollout = (spec: Record<string, unknown>, status: Record<string, unknown> | undefined, generation = 2): KubeObject =>
  cr(ROLLOUT, "Rollout", { spec: { replicas: 3, strategy: { canary: { steps: [{ setWeight: 20 }] } }, ...spec }, status, generation });
const legacy = { observedGeneration: "7d4f8c9b5", currentPodHash: "7d4f8c9b5", replicas: 3, updatedReplicas: 3, availableReplicas: 3 };

describe("Argo Rollouts health", () => {
  it.each<Row>([
    {
      name: "a Rollout without status waits for the controller",
      o: rollout({}, undefined),
      want: { status: "Progressing", message: "Waiting for rollout spec update to be observed" },
    },
    {
      name: "a v1 Rollout reports its phase and message",
      o: rollout({}, { observedGeneration: "2", phase: "Healthy", message: "" }),
      want: { status: "Healthy" },
    },
    {
      name: "a paused v1 Rollout is Suspended",
      o: rollout({}, { observedGeneration: "2", phase: "Paused", message: "CanaryPauseStep" }),
      want: { status: "Suspended", message: "CanaryPauseStep" },
    },
    {
      name: "an aborted v1 Rollout is Degraded",
      o: rollout({}, { observedGeneration: "2", phase: "Degraded", message: "RolloutAborted: Rollout aborted update to revision 3" }),
      want: { status: "Degraded", message: "RolloutAborted: Rollout aborted update to revision 3" },
    },
    {
      name: "a v1 Rollout whose referenced workload generation is not observed is Progressing",
      o: cr(ROLLOUT, "Rollout", {
        spec: { workloadRef: { apiVersion: "apps/v1", kind: "Deployment", name: "web" } },
        status: { observedGeneration: "2", workloadObservedGeneration: "4", phase: "Healthy" },
        generation: 2,
        annotations: { "rollout.argoproj.io/workload-generation": "5" },
      }),
      want: { status: "Progressing", message: "Waiting for rollout spec update to be observed" },
    },
    {
      name: "a legacy Rollout with an invalid spec is Degraded",
      o: rollout({}, { ...legacy, conditions: [{ type: "InvalidSpec", status: "True", message: 'The Rollout "x" is invalid' }] }),
      want: { status: "Degraded", message: 'The Rollout "x" is invalid' },
    },
    {
      name: "an aborted legacy Rollout is Degraded",
      o: rollout(
        {},
        { ...legacy, conditions: [{ type: "Progressing", status: "False", reason: "RolloutAborted", message: "Rollout is aborted" }] },
      ),
      want: { status: "Degraded", message: "Rollout is aborted" },
    },
    {
      name: "a legacy Rollout paused by the user is Suspended",
      o: rollout({ paused: true }, { ...legacy, conditions: [] }),
      want: { status: "Suspended", message: "Rollout is paused" },
    },
    {
      name: "a legacy Rollout paused by the controller is Suspended",
      o: rollout({}, { ...legacy, pauseConditions: [{ reason: "CanaryPauseStep", startTime: "2026-01-01T00:00:00Z" }] }),
      want: { status: "Suspended", message: "Rollout is paused" },
    },
    {
      name: "a legacy Rollout not yet reconciled is Progressing",
      o: rollout({}, { observedGeneration: "abc" }),
      want: { status: "Progressing", message: "Waiting for rollout to finish: status has not been reconciled." },
    },
    {
      name: "a legacy Rollout with replicas to update is Progressing",
      o: rollout({}, { ...legacy, updatedReplicas: 1 }),
      want: { status: "Progressing", message: "Waiting for roll out to finish: More replicas need to be updated" },
    },
    {
      name: "a legacy Rollout with updated replicas not yet available is Progressing",
      o: rollout({}, { ...legacy, availableReplicas: 2 }),
      want: { status: "Progressing", message: "Waiting for roll out to finish: updated replicas are still becoming available" },
    },
    {
      name: "a legacy canary with old replicas is Progressing",
      o: rollout({}, { ...legacy, replicas: 4, stableRS: "7d4f8c9b5" }),
      want: { status: "Progressing", message: "Waiting for roll out to finish: old replicas are pending termination" },
    },
    {
      name: "a legacy canary still in its steps is Progressing",
      o: rollout({}, { ...legacy, stableRS: "5f6d7c8b9" }),
      want: { status: "Progressing", message: "Waiting for rollout to finish steps" },
    },
    {
      name: "a legacy canary on its stable ReplicaSet is Healthy",
      o: rollout({}, { ...legacy, stableRS: "7d4f8c9b5" }),
      want: { status: "Healthy" },
    },
    {
      name: "a legacy canary reads the pre-v0.8 stable ReplicaSet",
      o: rollout({}, { ...legacy, canary: { stableRS: "7d4f8c9b5" } }),
      want: { status: "Healthy" },
    },
    {
      name: "a legacy blue-green before its cutover is Progressing",
      o: rollout({ strategy: { blueGreen: { activeService: "web" } } }, { ...legacy, blueGreen: { activeSelector: "5f6d7c8b9" } }),
      want: { status: "Progressing", message: "active service cutover pending" },
    },
    {
      name: "a legacy blue-green waiting for analysis is Progressing",
      o: rollout({ strategy: { blueGreen: {} } }, { ...legacy, blueGreen: { activeSelector: "7d4f8c9b5" }, stableRS: "5f6d7c8b9" }),
      want: { status: "Progressing", message: "waiting for analysis to complete" },
    },
    {
      name: "a legacy blue-green serving its current pods is Healthy",
      o: rollout({ strategy: { blueGreen: {} } }, { ...legacy, blueGreen: { activeSelector: "7d4f8c9b5" }, stableRS: "7d4f8c9b5" }),
      want: { status: "Healthy" },
    },
  ])("$name", ({ o, want }) => {
    expect(resourceHealth(o)).toEqual(want);
  });
});

const CM = "cert-manager.io/v1";
describe("cert-manager health", () => {
  it.each<Row>([
    {
      name: "a Certificate being issued is Progressing, whatever Ready says",
      o: cr(CM, "Certificate", {
        status: {
          conditions: [
            ready("False", "Issuing certificate as Secret does not exist"),
            { type: "Issuing", status: "True", message: "Issuing certificate as Secret does not exist" },
          ],
        },
      }),
      want: { status: "Progressing", message: "Issuing certificate as Secret does not exist" },
    },
    {
      name: "a ready Certificate is Healthy",
      o: cr(CM, "Certificate", { status: { conditions: [ready("True", "Certificate is up to date and has not expired")] } }),
      want: { status: "Healthy", message: "Certificate is up to date and has not expired" },
    },
    {
      name: "a Certificate that is not ready is Degraded",
      o: cr(CM, "Certificate", { status: { conditions: [ready("False", "Issuing certificate failed")] } }),
      want: { status: "Degraded", message: "Issuing certificate failed" },
    },
    {
      name: "a new Certificate waits",
      o: cr(CM, "Certificate", { status: {} }),
      want: { status: "Progressing", message: "Waiting for certificate" },
    },
    {
      name: "a registered Issuer is Healthy",
      o: cr(CM, "Issuer", { status: { conditions: [ready("True", "The ACME account was registered with the ACME server")] } }),
      want: { status: "Healthy", message: "The ACME account was registered with the ACME server" },
    },
    { name: "a new Issuer initializes", o: cr(CM, "Issuer", {}), want: { status: "Progressing", message: "Initializing issuer" } },
    {
      name: "a failing ClusterIssuer is Degraded",
      o: cr(CM, "ClusterIssuer", { status: { conditions: [ready("False", "Failed to verify ACME account")] } }),
      want: { status: "Degraded", message: "Failed to verify ACME account" },
    },
    {
      name: "a new ClusterIssuer initializes",
      o: cr(CM, "ClusterIssuer", { status: { conditions: [] } }),
      want: { status: "Progressing", message: "Initializing ClusterIssuer" },
    },
  ])("$name", ({ o, want }) => {
    expect(resourceHealth(o)).toEqual(want);
  });
});

const ES = "external-secrets.io/v1beta1";
describe("External Secrets health", () => {
  it.each<Row>([
    {
      name: "a synced ExternalSecret is Healthy",
      o: cr(ES, "ExternalSecret", {
        spec: { refreshInterval: "1h" },
        status: { conditions: [ready("True", "Secret was synced", { reason: "SecretSynced" })] },
      }),
      want: { status: "Healthy", message: "Secret was synced" },
    },
    {
      name: "an ExternalSecret that cannot sync is Degraded",
      o: cr(ES, "ExternalSecret", { spec: {}, status: { conditions: [ready("False", "could not get secret data from provider")] } }),
      want: { status: "Degraded", message: "could not get secret data from provider" },
    },
    {
      name: "an OnChange ExternalSecret ignores a Ready condition older than its refresh",
      o: cr(ES, "ExternalSecret", {
        spec: { refreshPolicy: "OnChange" },
        status: {
          refreshTime: "2026-03-02T10:00:00Z",
          conditions: [ready("True", "Secret was synced", { lastTransitionTime: "2026-03-01T10:00:00Z" })],
        },
      }),
      want: { status: "Progressing", message: "Waiting for ExternalSecret" },
    },
    {
      name: "an OnChange ExternalSecret counts a Ready condition since its refresh",
      o: cr(ES, "ExternalSecret", {
        spec: { refreshPolicy: "OnChange" },
        status: {
          refreshTime: "2026-03-02T10:00:00Z",
          conditions: [ready("True", "Secret was synced", { lastTransitionTime: "2026-03-02T10:00:00Z" })],
        },
      }),
      want: { status: "Healthy", message: "Secret was synced" },
    },
    {
      name: "a Ready condition of unknown status gives no health (Unknown, as Argo CD's script)",
      o: cr(ES, "ExternalSecret", { spec: {}, status: { conditions: [ready("Unknown", "")] } }),
      want: { status: "Unknown", message: "expect table output from Lua script, not nil" },
    },
    {
      name: "a new ExternalSecret waits",
      o: cr(ES, "ExternalSecret", { spec: {} }),
      want: { status: "Progressing", message: "Waiting for ExternalSecret" },
    },
    {
      name: "a valid SecretStore is Healthy",
      o: cr(ES, "SecretStore", { status: { conditions: [ready("True", "store validated")] } }),
      want: { status: "Healthy", message: "store validated" },
    },
    { name: "a new SecretStore waits", o: cr(ES, "SecretStore", {}), want: { status: "Progressing", message: "Waiting for SecretStore" } },
    {
      name: "an invalid ClusterSecretStore is Degraded",
      o: cr(ES, "ClusterSecretStore", { status: { conditions: [ready("False", "unable to validate store")] } }),
      want: { status: "Degraded", message: "unable to validate store" },
    },
    {
      name: "a new ClusterSecretStore waits",
      o: cr(ES, "ClusterSecretStore", {}),
      want: { status: "Progressing", message: "Waiting for ClusterSecretStore" },
    },
  ])("$name", ({ o, want }) => {
    expect(resourceHealth(o)).toEqual(want);
  });
});

const KEDA = "keda.sh/v1alpha1";
describe("KEDA health", () => {
  it.each<Row>([
    {
      name: "a ready ScaledObject is Healthy",
      o: cr(KEDA, "ScaledObject", {
        status: {
          conditions: [
            ready("True", "ScaledObject is defined correctly and is ready for scaling"),
            { type: "Active", status: "False", message: "no activity" },
          ],
        },
      }),
      want: { status: "Healthy", message: "ScaledObject is defined correctly and is ready for scaling" },
    },
    {
      name: "a paused ScaledObject is Suspended, with the last message",
      o: cr(KEDA, "ScaledObject", {
        status: { conditions: [ready("True", "ready"), { type: "Paused", status: "True", message: "ScaledObject is paused" }] },
      }),
      want: { status: "Suspended", message: "ScaledObject is paused" },
    },
    {
      name: "a ScaledObject on its fallback is Degraded",
      o: cr(KEDA, "ScaledObject", {
        status: {
          conditions: [ready("True", "ready"), { type: "Fallback", status: "True", message: "At least one trigger is falling back" }],
        },
      }),
      want: { status: "Degraded", message: "At least one trigger is falling back" },
    },
    {
      name: "a ScaledObject that is not ready is Degraded",
      o: cr(KEDA, "ScaledObject", { status: { conditions: [ready("False", "ScaledObject doesn't have correct triggers specification")] } }),
      want: { status: "Degraded", message: "ScaledObject doesn't have correct triggers specification" },
    },
    {
      name: "a new ScaledObject is creating its HPA",
      o: cr(KEDA, "ScaledObject", { status: { conditions: [{ type: "Paused", status: "True", message: "paused" }] } }),
      want: { status: "Progressing", message: "Creating HorizontalPodAutoscaler Object" },
    },
    {
      name: "a ScaledJob whose readiness is unknown is Degraded",
      o: cr(KEDA, "ScaledJob", { status: { conditions: [ready("Unknown", "ScaledJob check failed")] } }),
      want: { status: "Degraded", message: "ScaledJob check failed" },
    },
    {
      name: "a ready ScaledJob is Healthy",
      o: cr(KEDA, "ScaledJob", { status: { conditions: [ready("True", "ScaledJob is ready")] } }),
      want: { status: "Healthy", message: "ScaledJob is ready" },
    },
    { name: "a new ScaledJob waits", o: cr(KEDA, "ScaledJob", {}), want: { status: "Progressing", message: "Waiting for ScaledJob" } },
  ])("$name", ({ o, want }) => {
    expect(resourceHealth(o)).toEqual(want);
  });
});

describe("Crossplane and Upbound health", () => {
  it.each<Row>([
    {
      name: "a Composition (no status) is Healthy",
      o: cr("apiextensions.crossplane.io/v1", "Composition", {}),
      want: { status: "Healthy", message: "Resource is up-to-date." },
    },
    {
      name: "a ProviderConfig with an empty status is Healthy",
      o: cr("aws.crossplane.io/v1beta1", "ProviderConfig", { status: {} }),
      want: { status: "Healthy", message: "Resource is up-to-date." },
    },
    {
      name: "a ProviderConfig in use is Healthy",
      o: cr("aws.crossplane.io/v1beta1", "ProviderConfig", { status: { users: 2 } }),
      want: { status: "Healthy", message: "Resource is in use." },
    },
    {
      name: "a managed resource with an empty status is provisioning",
      o: cr("ec2.aws.crossplane.io/v1beta1", "VPC", { status: {} }),
      want: { status: "Progressing", message: "Provisioning ..." },
    },
    {
      name: "a healthy Provider is Healthy",
      o: cr("pkg.crossplane.io/v1", "Provider", {
        status: {
          conditions: [
            { type: "Installed", status: "True" },
            { type: "Healthy", status: "True" },
          ],
        },
      }),
      want: { status: "Healthy", message: "Resource is up-to-date." },
    },
    {
      name: "a managed resource that fails to sync is Degraded",
      o: cr("ec2.aws.crossplane.io/v1beta1", "VPC", {
        status: { conditions: [{ type: "Synced", status: "False", message: "cannot create VPC: AccessDenied" }] },
      }),
      want: { status: "Degraded", message: "cannot create VPC: AccessDenied" },
    },
    {
      name: "a failed async operation is Degraded",
      o: cr("ec2.aws.crossplane.io/v1beta1", "VPC", {
        status: { conditions: [{ type: "LastAsyncOperation", status: "False", message: "apply failed" }] },
      }),
      want: { status: "Degraded", message: "apply failed" },
    },
    {
      name: "a managed resource not ready yet is provisioning",
      o: cr("ec2.aws.crossplane.io/v1beta1", "VPC", { status: { conditions: [{ type: "Ready", status: "False", reason: "Creating" }] } }),
      want: { status: "Progressing", message: "Provisioning ..." },
    },
    {
      name: "an Upbound resource that is ready is Healthy",
      o: cr("s3.aws.upbound.io/v1beta1", "Bucket", {
        status: {
          conditions: [
            { type: "Ready", status: "True" },
            { type: "Synced", status: "True" },
          ],
        },
      }),
      want: { status: "Healthy", message: "Resource is up-to-date." },
    },
    {
      name: "an Upbound resource ready but then failing to sync is Degraded",
      o: cr("s3.aws.upbound.io/v1beta1", "Bucket", {
        status: {
          conditions: [
            { type: "Ready", status: "True" },
            { type: "Synced", status: "False", message: "throttled" },
          ],
        },
      }),
      want: { status: "Degraded", message: "throttled" },
    },
    {
      name: "only Ready counts as healthy for Upbound",
      o: cr("s3.aws.upbound.io/v1beta1", "Bucket", { status: { conditions: [{ type: "Healthy", status: "True" }] } }),
      want: { status: "Progressing", message: "Provisioning ..." },
    },
  ])("$name", ({ o, want }) => {
    expect(resourceHealth(o)).toEqual(want);
  });

  it("has no check for a composite of a user group", () => {
    expect(hasHealthCheck(cr("example.org/v1", "XDatabase", {}))).toBe(false);
    expect(hasHealthCheck(cr("ec2.aws.crossplane.io/v1beta1", "VPC", {}))).toBe(true);
  });
});
