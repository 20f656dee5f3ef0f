/**
 * Log lines of repeated failures, limited per key: the first failure of a key is logged, and so is
 * a failure whose message differs from the last one logged; the same failure again is logged at
 * most once per interval, with the count of the lines held back since. So a thousand ApplicationSets
 * failing every few milliseconds while the apiserver is away cost a line each per interval, not a
 * line per attempt. Pure apart from the injected clock.
 */
import type { Clock } from "../clock/index.js";

/** How often the same failure of one key is logged again. */
export const REPEAT_LOG_INTERVAL_MS = 30_000;

/** Keys remembered at most (the oldest are forgotten first). */
const MAX_KEYS = 10_000;

/** The per-key state: what was logged last, when, and how many lines were held back since. */
interface Last {
  readonly message: string;
  readonly at: number;
  readonly held: number;
}

/** Decides which failure lines are written. */
export class LogLimiter {
  private readonly last = new Map<string, Last>();

  constructor(
    private readonly clock: Pick<Clock, "now">,
    private readonly intervalMs = REPEAT_LOG_INTERVAL_MS,
  ) {}

  /**
   * Whether to log `message` for `key` now; when yes, how many lines of it were held back since the
   * last one written (0 for a first or changed failure).
   */
  allow(key: string, message: string): { log: true; suppressed: number } | { log: false } {
    const now = this.clock.now();
    const last = this.last.get(key);
    if (last !== undefined && last.message === message && now - last.at < this.intervalMs) {
      this.last.set(key, { ...last, held: last.held + 1 });
      return { log: false };
    }
    const suppressed = last !== undefined && last.message === message ? last.held : 0;
    this.last.delete(key);
    if (this.last.size >= MAX_KEYS) this.last.delete(this.last.keys().next().value as string);
    this.last.set(key, { message, at: now, held: 0 });
    return { log: true, suppressed };
  }

  /** Forgets `key` (it went through): its next failure is logged at once. */
  forget(key: string): void {
    this.last.delete(key);
  }
}
