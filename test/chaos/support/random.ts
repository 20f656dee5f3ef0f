/**
 * The chaos suite's randomness: one generator seeded from the run's seed (APPSET_TEST_SEED, see
 * test/support/seed.ts), so a run repeats exactly the moments and mutations of the last one with
 * the same seed, and a failure names the seed to replay it with.
 */
import { TEST_SEED } from "../../support/seed.js";

/** A small seeded generator (mulberry32). */
export class Random {
  private state: number;

  constructor(readonly seed: number = TEST_SEED) {
    this.state = seed >>> 0;
  }

  /** A float in [0, 1). */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** An integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  /** One element of `list`. */
  pick<T>(list: readonly T[]): T {
    return list[Math.floor(this.next() * list.length)]!;
  }
}
