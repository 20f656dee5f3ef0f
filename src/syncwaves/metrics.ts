/**
 * The sync engine's metric port (Argo CD's application-controller metrics; the Prometheus side is
 * `SyncEngineMetrics` in src/metrics) and the decorator that counts the requests an Application's
 * reconcile sends to its destination cluster (`argocd_app_k8s_request_total`).
 *
 * Labels follow Argo CD's `kubeclientmetrics`: verb `Get`, `List`, `Create`, `Update`, `Patch`,
 * `Delete`; `resource_kind` is the resource's plural as in the request URL; `response_code` is the
 * HTTP status, "0" when no response arrived.
 */
import { InCluster, type Application, type OperationState } from "../api/index.js";
import {
  KubeApiError,
  type DeleteOptions,
  type KubeClient,
  type KubeObject,
  type ListOptions,
  type ObjectKey,
  type ObjectList,
  type Patch,
  type ResourceDescriptor,
  type WriteOptions,
} from "../kube/index.js";
import type { ClusterAccess } from "./destinations.js";

/** Labels of one counted apiserver request. */
export interface K8sRequestLabels {
  readonly namespace: string;
  readonly name: string;
  readonly project: string;
  readonly server: string;
  readonly response_code: string;
  readonly verb: "Get" | "List" | "Create" | "Update" | "Patch" | "Delete";
  readonly resource_kind: string;
  readonly resource_namespace: string;
}

/** What the engine reports. Every method must be cheap and must not throw. */
export interface SyncMetrics {
  /** One reconcile of `app` took `seconds` (`argocd_app_reconcile`). */
  reconciled(app: Application, seconds: number): void;
  /** An operation of `app` reached a completed phase (`argocd_app_sync_total`, `argocd_app_sync_duration_seconds`). */
  syncCompleted(app: Application, state: OperationState): void;
  /** One request to a destination cluster (`argocd_app_k8s_request_total`). */
  k8sRequest(labels: K8sRequestLabels): void;
}

/** The HTTP status of a request's outcome: 200 on success, the error's status, or 0. */
function responseCode(err: unknown): string {
  if (err === undefined) return "200";
  return err instanceof KubeApiError ? String(err.status) : "0";
}

/** A {@link KubeClient} that reports every request it sends for one Application to {@link SyncMetrics}. */
export class CountingClient implements KubeClient {
  private readonly base: Pick<K8sRequestLabels, "namespace" | "name" | "project" | "server">;

  constructor(
    private readonly client: KubeClient,
    app: Application,
    server: string,
    private readonly metrics: SyncMetrics,
  ) {
    this.base = { namespace: app.metadata.namespace ?? "", name: app.metadata.name ?? "", project: app.spec.project ?? "", server };
  }

  get<T extends KubeObject = KubeObject>(r: ResourceDescriptor, key: ObjectKey): Promise<T> {
    return this.count("Get", r, key.namespace, () => this.client.get<T>(r, key));
  }

  list<T extends KubeObject = KubeObject>(r: ResourceDescriptor, options?: ListOptions): Promise<ObjectList<T>> {
    return this.count("List", r, options?.namespace, () => this.client.list<T>(r, options));
  }

  create<T extends KubeObject = KubeObject>(r: ResourceDescriptor, obj: T, options?: WriteOptions): Promise<T> {
    return this.count("Create", r, obj.metadata?.namespace, () => this.client.create(r, obj, options));
  }

  update<T extends KubeObject = KubeObject>(r: ResourceDescriptor, obj: T, options?: WriteOptions): Promise<T> {
    return this.count("Update", r, obj.metadata?.namespace, () => this.client.update(r, obj, options));
  }

  updateStatus<T extends KubeObject = KubeObject>(r: ResourceDescriptor, obj: T, options?: WriteOptions): Promise<T> {
    return this.count("Update", r, obj.metadata?.namespace, () => this.client.updateStatus(r, obj, options));
  }

  patch<T extends KubeObject = KubeObject>(r: ResourceDescriptor, key: ObjectKey, patch: Patch, options?: WriteOptions): Promise<T> {
    return this.count("Patch", r, key.namespace, () => this.client.patch<T>(r, key, patch, options));
  }

  patchStatus<T extends KubeObject = KubeObject>(r: ResourceDescriptor, key: ObjectKey, patch: Patch, options?: WriteOptions): Promise<T> {
    return this.count("Patch", r, key.namespace, () => this.client.patchStatus<T>(r, key, patch, options));
  }

  delete(r: ResourceDescriptor, key: ObjectKey, options?: DeleteOptions): Promise<void> {
    return this.count("Delete", r, key.namespace, () => this.client.delete(r, key, options));
  }

  private async count<T>(
    verb: K8sRequestLabels["verb"],
    r: ResourceDescriptor,
    namespace: string | undefined,
    call: () => Promise<T>,
  ): Promise<T> {
    const report = (err?: unknown): void =>
      this.metrics.k8sRequest({
        ...this.base,
        response_code: responseCode(err),
        verb,
        resource_kind: r.plural,
        resource_namespace: namespace ?? "",
      });
    try {
      const result = await call();
      report();
      return result;
    } catch (err) {
      report(err);
      throw err;
    }
  }
}

/**
 * The cluster access an Application's reconcile uses: requests counted for `app` when metrics are
 * on. Watches keep the shared access (they are not one Application's requests).
 */
export function accessFor(access: ClusterAccess, app: Application, metrics: SyncMetrics | undefined): ClusterAccess {
  if (metrics === undefined) return access;
  const counted = new CountingClient(access.client, app, access.id === "local" ? InCluster.server : access.id, metrics);
  const client: ClusterAccess["client"] = Object.assign(counted, {
    watch: (...a: Parameters<ClusterAccess["client"]["watch"]>) => access.client.watch(...a),
  });
  return { ...access, client };
}
