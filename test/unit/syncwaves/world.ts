/**
 * An in-memory stand-in for the cluster side of a sync, for unit tests of the step orchestration
 * (not a model of Kubernetes): objects are stored by identity, writes are logged in order, and
 * `tick()` plays the controllers by giving workloads and Jobs a terminal status.
 */
import type { ResourceResult } from "../../../src/api/index.js";
import type { KubeObject } from "../../../src/kube/index.js";
import { buildTasks, isTrackedBy } from "../../../src/syncwaves/build.js";
import type { ExecuteOptions } from "../../../src/syncwaves/executor.js";
import { resourceKeyOf, keyString } from "../../../src/syncwaves/objects.js";
import type { Actions, BatchReport } from "../../../src/syncwaves/plan.js";
import { runSyncStep, type StepExecutor, type StepResult } from "../../../src/syncwaves/step.js";
import { applied, failed, mergeResults, pruned, resultKey, restoreStates, withState } from "../../../src/syncwaves/tasks.js";
import type { SyncTask } from "../../../src/syncwaves/types.js";

const k = (o: KubeObject): string => keyString(resourceKeyOf(o));
const name = (o: KubeObject): string => `${o.kind ?? ""}/${o.metadata?.name ?? ""}`;

/** How a simulated controller finishes an object on `tick()`. */
export type Outcome = "ok" | "fail" | "never";

/** The in-memory world. */
export class World implements StepExecutor {
  readonly objects = new Map<string, KubeObject>();
  /** `apply Kind/name`, `delete Kind/name`, `dryrun Kind/name` in order. */
  readonly log: string[] = [];
  /** Names (Kind/name) whose apply fails, dry run included. */
  readonly failApply = new Set<string>();
  /** Names (Kind/name) whose real apply fails although the dry run passes. */
  readonly failWetApply = new Set<string>();
  /** Per Kind/name outcome of `tick()`; default ok. */
  readonly outcome = new Map<string, Outcome>();
  private version = 0;

  seed(...objs: KubeObject[]): void {
    for (const o of objs) this.objects.set(k(o), structuredClone({ ...o, metadata: { ...o.metadata, resourceVersion: "0" } }));
  }

  apply(task: SyncTask, options: ExecuteOptions): Promise<SyncTask> {
    const t = task.target!;
    if (this.failApply.has(name(t)) || (!options.dryRun && this.failWetApply.has(name(t)))) {
      return Promise.resolve(withState(task, failed(`${name(t)} is invalid`)));
    }
    if (!options.dryRun) {
      this.log.push(`apply ${name(t)}`);
      const prev = this.objects.get(k(t));
      const obj = structuredClone({ ...t, status: prev?.status, metadata: { ...t.metadata, resourceVersion: String(++this.version) } });
      if (!["Job", "Deployment"].includes(t.kind ?? "") || prev?.status === undefined) delete obj.status;
      this.objects.set(k(t), obj);
    }
    return Promise.resolve(withState({ ...task, live: this.objects.get(k(t)) }, applied(`${name(t)} applied`, options.dryRun)));
  }

  validate(tasks: readonly SyncTask[]): Promise<SyncTask[]> {
    return Promise.resolve(
      tasks.filter((t) => this.failApply.has(name(t.target!))).map((t) => withState(t, failed(`${name(t.target!)} is invalid`))),
    );
  }

  private remove(o: KubeObject): void {
    this.log.push(`delete ${name(o)}`);
    this.objects.delete(k(o));
  }

  async execute(actions: Actions, tasks: readonly SyncTask[], options: ExecuteOptions): Promise<BatchReport> {
    const updated = new Map<string, SyncTask>();
    const current = (): SyncTask[] => tasks.map((t) => updated.get(resultKey(t)) ?? t);
    for (const t of actions.removeFinalizers) {
      const live = this.objects.get(k(t.live ?? t.target!));
      if (live?.metadata) live.metadata.finalizers = [];
    }
    for (const t of actions.prunes) {
      this.remove(t.live!);
      updated.set(resultKey(t), withState(t, pruned(options.dryRun)));
    }
    if (actions.beforeCreation.length > 0) {
      for (const t of actions.beforeCreation) this.remove(t.live!);
      return { tasks: current(), waitingForDeletion: true };
    }
    for (const run of actions.applyRuns) for (const t of run) updated.set(resultKey(t), await this.apply(t, options));
    for (const t of actions.deleteHooks) this.remove(t.live ?? t.target!);
    return { tasks: current(), waitingForDeletion: false };
  }

  /** Plays the controllers: Jobs complete or fail, Deployments become available. */
  tick(): void {
    for (const o of this.objects.values()) {
      const outcome = this.outcome.get(name(o)) ?? "ok";
      if (outcome === "never") continue;
      if (o.kind === "Job" && o.status === undefined) {
        o.status = { conditions: [{ type: outcome === "ok" ? "Complete" : "Failed", status: "True", message: outcome }] };
      }
      if (o.kind === "Deployment" && o.status === undefined) {
        o.status =
          outcome === "ok"
            ? { observedGeneration: 0, replicas: 1, updatedReplicas: 1, availableReplicas: 1 }
            : { observedGeneration: 0, conditions: [{ type: "Progressing", reason: "ProgressDeadlineExceeded" }] };
      }
    }
  }
}

/** Options of {@link simulate}. */
export interface SimOptions {
  prune?: boolean;
  /** `Kind/name` of tasks whose live object already matches (ApplyOutOfSyncOnly may skip them). */
  unmodified?: string[];
  appOptions?: string[];
  maxSteps?: number;
  /** Stored results to resume from (as after a restart). */
  results?: ResourceResult[];
  /** Stop after this many steps (to simulate a crash); the results so far are returned. */
  stopAfter?: number;
  dryRun?: boolean;
  deadlineMs?: number;
  stepMs?: number;
}

/** The end of a simulated operation. */
export interface SimResult {
  phase: string;
  message: string;
  results: ResourceResult[];
  steps: StepResult[];
}

/** Runs a sync operation of `targets` against the world until it completes (or `stopAfter`). */
export async function simulate(world: World, targets: KubeObject[], o: SimOptions = {}): Promise<SimResult> {
  let results = o.results ?? [];
  const steps: StepResult[] = [];
  const appOptions = o.appOptions ?? [];
  for (let i = 0; i < (o.stopAfter ?? o.maxSteps ?? 50); i++) {
    const live = [...world.objects.values()].filter((x) => isTrackedBy(x, "app"));
    const built = buildTasks({
      targets,
      live,
      appName: "app",
      destinationNamespace: "ns",
      revision: "0123456789abcdef",
      startedAtMs: 1_700_000_000_000,
      skipHooks: false,
      appOptions,
    });
    const tasks = restoreStates(built, results).map((t) => ({
      ...t,
      live: world.objects.get(k(t.target ?? t.live!)),
      ...(o.unmodified?.includes(name(t.target ?? t.live!)) ? { modified: false } : {}),
    }));
    const step = await runSyncStep(
      {
        tasks,
        started: results.length > 0,
        validated: false,
        dryRun: o.dryRun ?? false,
        prune: o.prune ?? false,
        appOptions,
        startedAtMs: 0,
        nowMs: i * (o.stepMs ?? 1000),
        ...(o.deadlineMs !== undefined ? { deadlineMs: o.deadlineMs } : {}),
      },
      world,
      { dryRun: o.dryRun ?? false, propagation: "Foreground" },
    );
    steps.push(step);
    results = mergeResults(results, step.tasks);
    if (step.phase !== "Running") return { phase: step.phase, message: step.message, results, steps };
    world.tick();
  }
  const last = steps[steps.length - 1];
  return { phase: last?.phase ?? "Running", message: last?.message ?? "", results, steps };
}
