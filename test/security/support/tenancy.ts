/**
 * The tenancy suite's world on the shared control plane: Argo CD's namespace (the engine's), team
 * namespaces, Git repositories made by the test, AppProjects, and one `appset sync-engine` process
 * running with the administrator's rights, so that every refusal seen comes from the project rules
 * and not from RBAC. Helpers read back from the apiserver what the engine did (or did not) do.
 */
import { randomBytes } from "node:crypto";
import { inject } from "vitest";
import type { Application } from "../../../src/api/index.js";
import { isNotFound, KubeApiClient, resources, type KubeObject, type ResourceDescriptor } from "../../../src/kube/index.js";
import { makeRepo, TempDirs, type FileSpec } from "../../integration/support/git-repos.js";
import { eventually, processArgs, spawnController, type ControllerProcess } from "../../e2e/support/controller.js";

/** The in-cluster server. */
export const IN_CLUSTER = "https://kubernetes.default.svc";

/** A tenancy world: names, the admin client, the engine. */
export class Tenancy {
  readonly run = randomBytes(3).toString("hex");
  /** Argo CD's namespace: the engine's, the AppProjects'. */
  readonly argocd = `sec-argocd-${this.run}`;
  /** A team namespace `application.namespaces` allows. */
  readonly teamA = `sec-team-a-${this.run}`;
  /** A namespace `application.namespaces` does not allow. */
  readonly outside = `sec-outside-${this.run}`;
  /** Where team A may deploy. */
  readonly teamATarget = `sec-a-target-${this.run}`;
  /** Where team A may not deploy. */
  readonly teamBTarget = `sec-b-target-${this.run}`;
  readonly admin = KubeApiClient.fromConfig({ kind: "file", path: inject("kubeconfigPath") });
  private readonly temp = new TempDirs();
  engine: ControllerProcess | undefined;

  /** Creates the namespaces. */
  async setUp(): Promise<void> {
    for (const name of [this.argocd, this.teamA, this.outside, this.teamATarget, this.teamBTarget]) {
      await this.admin.create(resources.Namespaces, { metadata: { name } });
    }
  }

  /**
   * Starts `appset sync-engine` for Argo CD's namespace with `application.namespaces` = the team
   * prefix, in `env` (default: the tests' own, which reads local repositories).
   */
  async startEngine(env: NodeJS.ProcessEnv = process.env): Promise<void> {
    const args = processArgs(this.argocd, "--application-namespaces", `sec-team-*-${this.run}`);
    this.engine = spawnController(args, "sync-engine", undefined, env);
    await this.engine.waitForLog("sync engine starting", 90_000);
  }

  /** Stops the engine and deletes everything the suite made. */
  async tearDown(): Promise<void> {
    if (this.engine !== undefined && this.engine.child.exitCode === null) this.engine.child.kill("SIGKILL");
    for (const name of [this.argocd, this.teamA, this.outside, this.teamATarget, this.teamBTarget]) {
      await this.admin.delete(resources.Namespaces, { name }).catch(() => undefined);
    }
    await this.admin.transport.close();
    this.temp.cleanup();
  }

  /** A Git repository of the given files (`{ symlink }`: a link); its URL. */
  repo(files: Record<string, FileSpec>): string {
    return `file://${makeRepo(this.temp, files)}`;
  }

  /** Creates an AppProject in Argo CD's namespace. */
  async project(name: string, spec: Record<string, unknown>): Promise<void> {
    await this.admin.create(resources.AppProjects, {
      apiVersion: "argoproj.io/v1alpha1",
      kind: "AppProject",
      metadata: { name, namespace: this.argocd },
      spec,
    });
  }

  /** Creates an Application asking for a sync at once (an operation, as `argocd app sync` does). */
  async application(o: {
    name: string;
    namespace: string;
    project: string;
    repoURL: string;
    destinationNamespace: string;
    server?: string;
    syncOptions?: string[];
    finalizers?: string[];
  }): Promise<Application> {
    const created = await this.admin.create<KubeObject>(resources.Applications, {
      apiVersion: "argoproj.io/v1alpha1",
      kind: "Application",
      metadata: { name: o.name, namespace: o.namespace, ...(o.finalizers ? { finalizers: o.finalizers } : {}) },
      spec: {
        project: o.project,
        source: { repoURL: o.repoURL, targetRevision: "main", path: "." },
        destination: { server: o.server ?? IN_CLUSTER, namespace: o.destinationNamespace },
        ...(o.syncOptions ? { syncPolicy: { syncOptions: o.syncOptions } } : {}),
      },
      operation: {
        sync: { revision: "main", ...(o.syncOptions ? { syncOptions: o.syncOptions } : {}) },
        initiatedBy: { username: "tenant" },
      },
    });
    return created as unknown as Application;
  }

  /** Team A's Application `name` of `repoURL` into `destinationNamespace` (team A's), synced once; the Application then. */
  async teamASync(name: string, repoURL: string, destinationNamespace = this.teamATarget): Promise<Application> {
    await this.application({ name, namespace: this.teamA, project: "team-a", repoURL, destinationNamespace });
    return this.finished(this.teamA, name);
  }

  /** Creates an Argo CD Secret (`repository` or `cluster`) in Argo CD's namespace. */
  async argoSecret(name: string, type: "repository" | "cluster", stringData: Record<string, string>): Promise<void> {
    await this.admin.create(resources.Secrets, {
      metadata: { name, namespace: this.argocd, labels: { "argocd.argoproj.io/secret-type": type } },
      stringData,
    });
  }

  /** Asks for another sync of an Application (a new operation). */
  async syncAgain(namespace: string, name: string, username: string): Promise<void> {
    await this.admin.patch(
      resources.Applications,
      { namespace, name },
      { type: "merge", body: { operation: { sync: { revision: "main" }, initiatedBy: { username } } } },
    );
  }

  /** The Application now. */
  async read(namespace: string, name: string): Promise<Application> {
    return (await this.admin.get<KubeObject>(resources.Applications, { namespace, name })) as unknown as Application;
  }

  /** Waits until the Application's operation has ended; the Application then. */
  async finished(namespace: string, name: string): Promise<Application> {
    return eventually(
      `the operation of ${namespace}/${name} to end`,
      async () => {
        const app = await this.read(namespace, name);
        const phase = app.status?.operationState?.phase;
        return phase !== undefined && phase !== "Running" && phase !== "Terminating" ? app : undefined;
      },
      90_000,
    );
  }

  /** True when the object exists. */
  async exists(resource: ResourceDescriptor, key: { namespace?: string; name: string }): Promise<boolean> {
    try {
      await this.admin.get(resource, key);
      return true;
    } catch (err) {
      if (isNotFound(err)) return false;
      throw err;
    }
  }
}

/** A ConfigMap manifest. */
export const configMap = (name: string, namespace?: string): string =>
  `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n${namespace ? `  namespace: ${namespace}\n` : ""}data:\n  k: v\n`;

/** The conditions of an Application as `type: message` lines. */
export function conditionLines(app: Application): string[] {
  return (app.status?.conditions ?? []).map((c) => `${c.type}: ${c.message ?? ""}`);
}
