/**
 * The time limit of one request: a signal that aborts after `ms` or when the caller's signal does,
 * released by {@link Deadline.clear} as soon as the request is done. `AbortSignal.timeout` combined
 * by `AbortSignal.any` does the same, but its timer and the combined signal's links stay until the
 * full time has passed: a fan-out of 5,000 writes held 5,000 of each for the 60 s limit.
 */

/** A request's time limit, linked to the caller's signal. */
export class Deadline {
  readonly signal: AbortSignal;
  private readonly controller = new AbortController();
  private readonly timer: NodeJS.Timeout;
  private expired = false;
  private readonly onParentAbort: (() => void) | undefined;

  constructor(
    ms: number,
    private readonly parent?: AbortSignal,
  ) {
    this.signal = this.controller.signal;
    this.timer = setTimeout(() => {
      this.expired = true;
      this.controller.abort(new DOMException(`the operation timed out after ${String(ms)} ms`, "TimeoutError"));
    }, ms);
    this.timer.unref();
    if (parent === undefined) return;
    if (parent.aborted) {
      this.clear();
      this.controller.abort(parent.reason);
      return;
    }
    this.onParentAbort = () => {
      clearTimeout(this.timer);
      this.controller.abort(parent.reason);
    };
    parent.addEventListener("abort", this.onParentAbort, { once: true });
  }

  /** Whether the time limit (not the caller) aborted the signal. */
  get timedOut(): boolean {
    return this.expired;
  }

  /** Stops the timer and unlinks the caller's signal; the signal no longer aborts. */
  clear(): void {
    clearTimeout(this.timer);
    if (this.onParentAbort !== undefined) this.parent?.removeEventListener("abort", this.onParentAbort);
  }
}
