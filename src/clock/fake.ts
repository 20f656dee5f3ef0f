import { sleepOn, type Clock, type TimerHandle } from "./clock.js";

type Pending = { id: number; at: number; fn: () => void };

/**
 * A clock for tests: time stands still until {@link FakeClock.advance} moves it, and timers fire in
 * due order (ties in scheduling order) as time passes them.
 */
export class FakeClock implements Clock {
  private current: number;
  private pending: Pending[] = [];
  private nextId = 1;

  constructor(startMs = Date.UTC(2026, 0, 1)) {
    this.current = startMs;
  }

  now(): number {
    return this.current;
  }

  setTimeout(fn: () => void, ms: number): TimerHandle {
    const id = this.nextId++;
    this.pending.push({ id, at: this.current + Math.max(0, ms), fn });
    return { id };
  }

  clearTimeout(handle: TimerHandle): void {
    this.pending = this.pending.filter((p) => p.id !== handle.id);
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return sleepOn(this, ms, signal);
  }

  /** Number of timers not yet fired. */
  get pendingTimers(): number {
    return this.pending.length;
  }

  /** Moves time forward by `ms`, firing every timer that falls due, in order. */
  advance(ms: number): void {
    const target = this.targetOf(ms);
    while (this.fireNext(target));
    this.current = target;
  }

  /** Moves time forward like {@link advance}, letting promise callbacks run between timers. */
  async advanceAsync(ms: number): Promise<void> {
    const target = this.targetOf(ms);
    do await flushMicrotasks();
    while (this.fireNext(target));
    this.current = target;
    await flushMicrotasks();
  }

  private targetOf(ms: number): number {
    if (ms < 0) throw new Error("Unable to travel back in time");
    return this.current + ms;
  }

  /** Fires the earliest timer due by `target` (ties in scheduling order); false when none is. */
  private fireNext(target: number): boolean {
    const due = this.pending.filter((p) => p.at <= target).sort((a, b) => a.at - b.at || a.id - b.id)[0];
    if (due === undefined) return false;
    this.pending = this.pending.filter((p) => p.id !== due.id);
    this.current = due.at;
    due.fn();
    return true;
  }
}

async function flushMicrotasks(): Promise<void> {
  for (let i = 0; i < 10; i++) await Promise.resolve();
}
