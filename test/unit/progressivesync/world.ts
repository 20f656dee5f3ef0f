// A simulated world for RollingSync: a Git repository whose HEAD moves, a fake application
// controller that refreshes, syncs and reports health the way Argo CD's does (in simplified form),
// and a harness that applies each planRollout decision as the ApplicationSet controller would.
// Every write is recorded so tests can check invariants across passes.
import type { Application, ApplicationSet, Operation } from "../../../src/api/index.js";
import { rfc3339 } from "../../../src/clock/index.js";
import { planRollout, type GeneratedAppView, type RolloutDecision } from "../../../src/progressivesync/index.js";

/** A sync the world executed. */
export interface ExecutedSync {
  readonly app: string;
  readonly revision: string;
  readonly by: string;
  readonly at: number;
}

/** A sync operation the ApplicationSet controller wrote. */
export interface WrittenSync {
  readonly app: string;
  readonly step: string;
  readonly revision: string | undefined;
  readonly at: number;
}

interface Running {
  readonly revision: string;
  readonly by: string;
}

/** How the fake application controller behaves. */
export interface WorldOptions {
  /** Apps refreshed on their own only every `slowEvery` ticks (the others every tick). */
  readonly slow?: ReadonlySet<string>;
  readonly slowEvery?: number;
  readonly passMs?: number;
  readonly refreshGracePeriodMs?: number;
}

/** The world: ApplicationSet, live Applications, repository HEAD, clock, and logs. */
export class World<D extends GeneratedAppView & { metadata: { name: string; labels: Record<string, string> } }> {
  now: number;
  head: string;
  tick = 0;
  readonly apps = new Map<string, Application>();
  readonly deployed = new Map<string, string>();
  /** Revisions at which each Application was seen Synced and Healthy. */
  readonly validated = new Map<string, Set<string>>();
  readonly executed: ExecutedSync[] = [];
  readonly written: WrittenSync[] = [];
  readonly decisions: RolloutDecision<D>[] = [];
  private readonly running = new Map<string, Running>();
  private readonly settling = new Map<string, number>();

  constructor(
    public appSet: ApplicationSet,
    public desired: D[],
    start: { now: number; head: string; deployed: string },
    private readonly opts: WorldOptions = {},
  ) {
    this.now = start.now;
    this.head = start.head;
    for (const d of desired) {
      this.apps.set(d.metadata.name, this.newApp(d));
      this.deployed.set(d.metadata.name, start.deployed);
      this.refresh(d.metadata.name);
    }
  }

  private newApp(d: D): Application {
    return {
      apiVersion: "argoproj.io/v1alpha1",
      kind: "Application",
      metadata: { name: d.metadata.name, namespace: "argocd", labels: { ...d.metadata.labels } },
      spec: structuredClone(d.spec) as Application["spec"],
      status: {},
    };
  }

  /** One application-controller tick: start or finish operations, then refresh the Applications due. */
  controllerTick(): void {
    this.tick++;
    for (const [name, app] of this.apps) {
      this.advanceOperation(name, app);
      const slow = this.opts.slow?.has(name) === true && this.tick % (this.opts.slowEvery ?? 4) !== 0;
      if (!slow || app.metadata.annotations?.["argocd.argoproj.io/refresh"] !== undefined || this.running.has(name)) this.refresh(name);
    }
  }

  private advanceOperation(name: string, app: Application): void {
    const run = this.running.get(name);
    if (run !== undefined) {
      this.deployed.set(name, run.revision);
      this.running.delete(name);
      this.settling.set(name, 1);
      delete app.operation;
      app.status = { ...app.status, operationState: { ...app.status!.operationState!, phase: "Succeeded", finishedAt: rfc3339(this.now) } };
      return;
    }
    const op = app.operation;
    if (op === undefined) return;
    const revision = op.sync?.revision ?? this.head;
    const by = op.initiatedBy?.username ?? "unknown";
    this.running.set(name, { revision, by });
    this.executed.push({ app: name, revision, by, at: this.now });
    app.status = { ...app.status, operationState: { operation: op, phase: "Running", startedAt: rfc3339(this.now) } };
  }

  /** A comparison: revision of HEAD, sync status and health, reconciledAt and comparedTo. */
  refresh(name: string): void {
    const app = this.apps.get(name)!;
    const synced = this.deployed.get(name) === this.head && !this.running.has(name);
    const settling = this.settling.get(name) ?? 0;
    const health = this.running.has(name) || settling > 0 ? "Progressing" : "Healthy";
    if (settling > 0) this.settling.set(name, settling - 1);
    app.status = {
      ...app.status,
      sync: {
        status: synced ? "Synced" : "OutOfSync",
        revision: this.head,
        comparedTo: { source: app.spec.source, destination: app.spec.destination },
      },
      health: { status: health },
      reconciledAt: rfc3339(this.now),
    };
    if (app.metadata.annotations) delete app.metadata.annotations["argocd.argoproj.io/refresh"];
    if (synced && health === "Healthy") this.validated.set(name, (this.validated.get(name) ?? new Set()).add(this.head));
  }

  /** A user syncs an Application by hand (not pinned: the application controller uses HEAD). */
  manualSync(name: string): void {
    this.apps.get(name)!.operation = { sync: {}, initiatedBy: { username: "admin" } };
  }

  /** One ApplicationSet-controller pass: plan, then apply the decision. */
  pass(): RolloutDecision<D> {
    const d = planRollout({
      appSet: this.appSet,
      desired: this.desired,
      current: [...this.apps.values()],
      now: this.now,
      config: { progressiveSyncsEnabled: true, refreshGracePeriodMs: this.opts.refreshGracePeriodMs ?? 30_000 },
    });
    this.apply(d);
    this.decisions.push(d);
    return d;
  }

  private apply(d: RolloutDecision<D>): void {
    if (d.applicationStatus !== undefined)
      this.appSet = { ...this.appSet, status: { ...this.appSet.status, applicationStatus: [...d.applicationStatus] } };
    for (const planned of d.applications) {
      const name = planned.metadata.name;
      const app = this.apps.get(name) ?? this.newApp(planned);
      app.spec = structuredClone(planned.spec) as Application["spec"];
      this.apps.set(name, app);
      const op = (planned as { operation?: Operation }).operation;
      if (op !== undefined && app.operation === undefined) {
        app.operation = structuredClone(op);
        const step = d.syncs.find((s) => s.application === name)!.step;
        this.written.push({ app: name, step, revision: op.sync?.revision, at: this.now });
      }
    }
    for (const name of d.refresh) {
      const app = this.apps.get(name)!;
      app.metadata.annotations = { ...app.metadata.annotations, "argocd.argoproj.io/refresh": "normal" };
    }
  }

  /** Advances the clock by one pass. */
  advance(): void {
    this.now += this.opts.passMs ?? 10_000;
  }

  /** The current entry statuses by name. */
  statuses(): Map<string, string> {
    return new Map((this.appSet.status?.applicationStatus ?? []).map((e) => [e.application, e.status]));
  }
}
