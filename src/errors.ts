/**
 * The project's error types. Every error that crosses a module boundary carries a stable `reason`
 * (the strings match Argo CD's `ApplicationSetReason*` values where one exists), so callers branch on
 * data, never on message text.
 */

/** Base class: an error with a stable machine-readable reason. */
export class AppSetError extends Error {
  readonly reason: string;

  constructor(reason: string, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.reason = reason;
  }
}

/**
 * Wraps an error that retrying will not fix: the worker logs it and does not requeue
 * (controller-runtime's `TerminalError`).
 */
export class TerminalError extends AppSetError {
  constructor(cause: Error) {
    super(cause instanceof AppSetError ? cause.reason : "Terminal", cause.message, { cause });
  }
}

/**
 * A write refused because this replica no longer owns the key (sharded replicas,
 * docs/sharding.md#fencing): the pass stops where it is and is not retried here; the owner takes it.
 */
export class NotOwnerError extends AppSetError {
  constructor(readonly key: string) {
    super("NotOwner", `${key} is owned by another replica now: nothing more is written for it here`);
  }
}

/** True when `err` is, or wraps, a {@link TerminalError}. */
export function isTerminal(err: unknown): boolean {
  for (let e: unknown = err; e instanceof Error; e = e.cause) {
    if (e instanceof TerminalError) return true;
  }
  return false;
}

/** The message of any thrown value. */
export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
