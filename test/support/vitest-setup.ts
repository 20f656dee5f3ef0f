/**
 * Setup of every vitest project: fast-check draws from the run's fixed seed (test/support/seed.ts),
 * so a property that fails once fails again; `APPSET_TEST_SEED` runs the properties on another seed.
 * The processes the tests start read the tests' repositories, folders of this machine
 * (`--allow-local-repositories`); the security suite starts its own without it.
 */
import fc from "fast-check";
import { TEST_SEED } from "./seed.js";

/** The environment variable of `--allow-local-repositories`. */
export const ALLOW_LOCAL_REPOSITORIES_ENV = "ARGOCD_APPLICATIONSET_CONTROLLER_ALLOW_LOCAL_REPOSITORIES";

fc.configureGlobal({ seed: TEST_SEED });

process.env[ALLOW_LOCAL_REPOSITORIES_ENV] = "true";
