/**
 * One step of a sync operation, end to end: plan it, validate on the first step, run the actions
 * through a {@link StepExecutor}, conclude a batch and run what the conclusion asks for (SyncFail
 * hooks, policy deletions). The executor is a port, so this orchestration is exercised in unit
 * tests with an in-memory executor and on the real control plane with {@link SyncExecutor}.
 */
import { OperationPhase, ResultCode, SyncPhase } from "../api/index.js";
import type { ExecuteOptions } from "./executor.js";
import { Message } from "./messages.js";
import { groupOf, str } from "./objects.js";
import { OptionKey, optionIs } from "./options.js";
import { concludeBatch, planStep, type Actions, type BatchReport, type StepContext } from "./plan.js";
import { resultKey } from "./tasks.js";
import type { SyncTask } from "./types.js";

/** What a step needs from the outside world. */
export interface StepExecutor {
  execute(actions: Actions, tasks: readonly SyncTask[], options: ExecuteOptions): Promise<BatchReport>;
  /** Dry-runs the tasks; returns those that failed, with their state. */
  validate(tasks: readonly SyncTask[], options: ExecuteOptions): Promise<SyncTask[]>;
  /** Applies one task for real (the destination namespace before the dry-run). */
  apply(task: SyncTask, options: ExecuteOptions): Promise<SyncTask>;
}

/** The outcome of a step. */
export interface StepResult {
  readonly phase: OperationPhase;
  readonly message: string;
  /** The tasks with the states to record. */
  readonly tasks: readonly SyncTask[];
  /** True when the wave delay applies before the next step. */
  readonly waveDelay: boolean;
}

function hasActions(a: Actions): boolean {
  return a.removeFinalizers.length + a.prunes.length + a.beforeCreation.length + a.applyRuns.length + a.deleteHooks.length > 0;
}

function replace(tasks: readonly SyncTask[], changed: readonly SyncTask[]): SyncTask[] {
  const byKey = new Map(changed.map((t) => [resultKey(t), t]));
  return tasks.map((t) => byKey.get(resultKey(t)) ?? t);
}

/** True when a task's kind is defined by a CRD of the same sync, or it opts out of the dry-run. */
function skipsDryRun(task: SyncTask, crdKinds: ReadonlySet<string>, appOptions: readonly string[]): boolean {
  const t = task.target;
  if (t === undefined) return true;
  if (crdKinds.has(`${groupOf(t)}/${t.kind ?? ""}`)) return true;
  return optionIs(appOptions, OptionKey.SkipDryRunOnMissingResource, "true", t);
}

/**
 * The validation pass: the destination namespace CreateNamespace=true asks for is applied for real
 * first (and recorded, so it is not applied again), then every other target is checked. Returns the
 * tasks, or the failed outcome.
 */
async function validate(
  ctx: StepContext,
  tasks: readonly SyncTask[],
  exec: StepExecutor,
  options: ExecuteOptions,
): Promise<StepResult | SyncTask[]> {
  const namespaces = tasks.filter(
    (t) => t.target?.kind === "Namespace" && groupOf(t.target) === "" && t.live === undefined && t.phase === SyncPhase.PreSync && !t.hook,
  );
  const created: SyncTask[] = [];
  for (const ns of namespaces) {
    const done = await exec.apply(ns, options);
    if (done.state.status === ResultCode.SyncFailed) {
      return {
        phase: OperationPhase.Failed,
        message: `${Message.NamespaceFailed}, reason: ${done.state.message ?? ""}`,
        tasks: replace(tasks, [done]),
        waveDelay: false,
      };
    }
    created.push(done);
  }
  const crdKinds = new Set(
    tasks
      .filter((t) => t.target?.kind === "CustomResourceDefinition")
      .map((t) => `${str(t.target, "spec", "group") ?? ""}/${str(t.target, "spec", "names", "kind") ?? ""}`),
  );
  const checked = tasks.filter((t) => !namespaces.includes(t) && !skipsDryRun(t, crdKinds, ctx.appOptions));
  const failures = await exec.validate(checked, options);
  if (failures.length === 0) return replace(tasks, created);
  return { phase: OperationPhase.Failed, message: Message.DryRunFailed, tasks: replace(tasks, failures), waveDelay: false };
}

/** Plans and runs one step of a sync operation. */
export async function runSyncStep(ctx: StepContext, exec: StepExecutor, options: ExecuteOptions): Promise<StepResult> {
  let step = planStep(ctx);
  if (step.kind === "validate") {
    const validated = await validate(ctx, step.tasks, exec, options);
    if (!Array.isArray(validated)) return validated;
    step = planStep({ ...ctx, tasks: validated, validated: true });
  }
  const report = await exec.execute(step.actions, step.tasks, options);
  if (step.kind !== "batch") return { phase: step.phase, message: step.message, tasks: report.tasks, waveDelay: false };
  const conclusion = concludeBatch(step, report);
  const after = hasActions(conclusion.actions)
    ? await exec.execute(conclusion.actions, conclusion.tasks, options)
    : { tasks: conclusion.tasks };
  return { phase: conclusion.phase, message: conclusion.message, tasks: after.tasks, waveDelay: conclusion.waveDelay };
}
