import { sleepOn, type Clock, type TimerHandle } from "./clock.js";

/** The real clock: wall time and Node's timers. Timers do not keep the process alive. */
export class SystemClock implements Clock {
  private readonly timers = new Map<number, NodeJS.Timeout>();
  private nextId = 1;

  now(): number {
    return Date.now();
  }

  setTimeout(fn: () => void, ms: number): TimerHandle {
    const id = this.nextId++;
    const timer = setTimeout(
      () => {
        this.timers.delete(id);
        fn();
      },
      Math.max(0, ms),
    );
    timer.unref();
    this.timers.set(id, timer);
    return { id };
  }

  clearTimeout(handle: TimerHandle): void {
    const timer = this.timers.get(handle.id);
    if (timer !== undefined) {
      clearTimeout(timer);
      this.timers.delete(handle.id);
    }
  }

  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return sleepOn(this, ms, signal);
  }
}
