/**
 * Setup of every vitest project: fast-check draws from the run's fixed seed (test/support/seed.ts),
 * so a property that fails once fails again; `APPSET_TEST_SEED` runs the properties on another seed.
 */
import fc from "fast-check";
import { TEST_SEED } from "./seed.js";

fc.configureGlobal({ seed: TEST_SEED });
