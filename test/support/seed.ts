/**
 * The seed of every random choice the tests make: fast-check properties (configured globally by
 * test/support/vitest-setup.ts) and generated test data. Fixed, so that a run repeats the last one;
 * `APPSET_TEST_SEED=<integer>` picks another (to explore, or to replay the seed a failure printed).
 */

/** The seed used when APPSET_TEST_SEED is not set. */
export const DEFAULT_TEST_SEED = 20260101;

/** Reads APPSET_TEST_SEED from `env`: an integer, or the default when unset or empty. */
export function seedFrom(env: Readonly<Record<string, string | undefined>>): number {
  const raw = env["APPSET_TEST_SEED"]?.trim();
  if (raw === undefined || raw === "") return DEFAULT_TEST_SEED;
  const seed = Number(raw);
  if (!Number.isSafeInteger(seed)) throw new Error(`APPSET_TEST_SEED must be an integer, got ${JSON.stringify(raw)}`);
  return seed;
}

/** The seed of this run. */
export const TEST_SEED = seedFrom(process.env);
