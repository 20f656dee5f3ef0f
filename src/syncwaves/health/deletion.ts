/**
 * The health of an object being deleted (docs/sync-engine.md#health), as Argo CD 3.6 reports it:
 * once `metadata.deletionTimestamp` is set, and unless the object holds the hook finalizer (a hook
 * keeps its own health until we have read its outcome), the result of its check gives way to
 * `Progressing` "Pending deletion", naming the finalizers that still hold it. A Lua check that
 * returns a `deletionMessage` opts out of that default: its status is kept and its
 * `deletionMessage` becomes the message. Pure.
 */
import { Finalizer, HealthStatus } from "../../api/index.js";
import type { KubeObject } from "../../kube/index.js";
import type { HealthResult } from "../types.js";

/** Argo CD's messages for an object being deleted. */
export const DeletionHealthMessage = {
  /** Nothing but its deletion holds the object. */
  PendingDeletion: "Pending deletion",
  /** The object's finalizers, in their order, hold it. */
  blockedBy: (finalizers: readonly string[]): string => `Pending deletion; blocked by finalizers: ${finalizers.join(", ")}`,
} as const;

/** A check's result with the message it gives instead while its object is being deleted. */
export interface CheckedHealth extends HealthResult {
  /** Replaces the default pending-deletion health (status kept) when set and not empty. */
  readonly deletionMessage?: string;
}

function finalizersOf(obj: KubeObject): string[] {
  const f = obj.metadata?.finalizers;
  return Array.isArray(f) ? f.filter((x): x is string => typeof x === "string") : [];
}

/**
 * The health of `obj` while it is being deleted, given what its check said (undefined: no check
 * applies); undefined when it is not being deleted or holds the hook finalizer.
 */
export function pendingDeletionHealth(obj: KubeObject, checked: CheckedHealth | undefined): HealthResult | undefined {
  const finalizers = finalizersOf(obj);
  if (!obj.metadata?.deletionTimestamp || finalizers.includes(Finalizer.Hook)) return undefined;
  if (checked?.deletionMessage) return { status: checked.status, message: checked.deletionMessage };
  return {
    status: HealthStatus.Progressing,
    message: finalizers.length > 0 ? DeletionHealthMessage.blockedBy(finalizers) : DeletionHealthMessage.PendingDeletion,
  };
}

/** The result as callers see it: `deletionMessage` is never shown. */
export function shownHealth(checked: CheckedHealth): HealthResult {
  if (checked.deletionMessage === undefined) return checked;
  return { status: checked.status, ...(checked.message !== undefined ? { message: checked.message } : {}) };
}
