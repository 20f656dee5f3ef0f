/**
 * The invariants a chaos run holds the controller to, checked over what a RolloutRecorder saw of
 * the apiserver (every Application and ApplicationSet change, from a watch of its own). Each
 * returns the violations as sentences; an empty list means the invariant held.
 */
import {
  CONTROLLER,
  ENVS,
  maxUpdating,
  operationsWritten,
  outOfOrderSyncs,
  syncsPerRevision,
  type Env,
} from "../../e2e/support/guestbook-rollout.js";
import type { RolloutRecorder } from "../../e2e/support/rollout-recorder.js";

/** Every violation of the rollout invariants: no double sync, step order, `maxUpdate`, no churn. */
export function rolloutViolations(
  rec: RolloutRecorder,
  opts: {
    readonly maxProdUpdating: number;
    readonly deletionFromSeq?: number;
    /** Applications an operator syncs by hand (and syncs again when such a sync failed). */
    readonly manual?: readonly string[];
  },
): string[] {
  const out: string[] = [];
  const manual = new Set(opts.manual ?? []);
  for (const [key, n] of syncsPerRevision(rec))
    if (n > 1 && !manual.has(key.slice(0, key.lastIndexOf("@")))) out.push(`${key} was synced ${String(n)} times`);
  const byController = new Map<string, number>();
  for (const op of operationsWritten(rec))
    if (op.by === CONTROLLER)
      byController.set(`${op.name}@${String(op.revision)}`, (byController.get(`${op.name}@${String(op.revision)}`) ?? 0) + 1);
  for (const [key, n] of byController) if (n > 1) out.push(`the controller wrote the operation ${key} ${String(n)} times`);
  out.push(...outOfOrderSyncs(rec));
  const prod = maxUpdating(rec, "env-prod");
  if (prod > opts.maxProdUpdating)
    out.push(`${String(prod)} prod Applications were updating at once (maxUpdate allows ${String(opts.maxProdUpdating)})`);
  const until = opts.deletionFromSeq ?? Infinity;
  for (const e of rec.apps)
    if (e.seq < until && (e.deleting || e.gone))
      out.push(`${e.name} was ${e.gone ? "deleted" : "marked for deletion"} while generated (event ${String(e.seq)})`);
  return out;
}

/**
 * Reverse deletion's order: no Application of an environment is marked for deletion before every
 * Application of each later environment is gone.
 */
export function reverseDeletionViolations(rec: RolloutRecorder): string[] {
  const firstDeleting = new Map<string, number>();
  const gone = new Map<string, number>();
  const envOf = new Map<string, Env>();
  for (const e of rec.apps) {
    envOf.set(e.name, e.env as Env);
    if (e.deleting && !firstDeleting.has(e.name)) firstDeleting.set(e.name, e.seq);
    if (e.gone && !gone.has(e.name)) gone.set(e.name, e.seq);
  }
  const out: string[] = [];
  for (const [name, seq] of firstDeleting) {
    const k = ENVS.indexOf(envOf.get(name)!);
    for (const [other, env] of envOf) {
      if (ENVS.indexOf(env) <= k) continue;
      const g = gone.get(other);
      if (g === undefined || g > seq) out.push(`${name} was marked for deletion before ${other} (a later step) was gone`);
    }
  }
  return out;
}
