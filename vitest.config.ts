import { defineConfig } from "vitest/config";

// Four projects: "unit" (pure logic, no processes), "e2e" (one real control plane for the whole
// run, started by the global setup), "argocd" (beside Argo CD v3.6: its CRDs on a control plane of
// their own, its application controller, repo-server and applicationset controller run by the tests;
// the differential suite runs its fast subset there unless APPSET_DIFFERENTIAL says otherwise),
// "heavy" (long suites, run on demand with `npm run test:heavy`).
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: "unit",
          include: ["src/**/*.test.ts", "test/unit/**/*.test.ts"],
        },
      },
      {
        test: {
          name: "e2e",
          include: ["test/e2e/**/*.test.ts"],
          globalSetup: ["test/cluster/global-setup.ts"],
          testTimeout: 120_000,
          hookTimeout: 180_000,
          fileParallelism: false,
        },
      },
      {
        test: {
          name: "argocd",
          include: ["test/argocd/**/*.test.ts", "test/differential/**/*.test.ts"],
          globalSetup: ["test/argocd/global-setup.ts"],
          testTimeout: 180_000,
          // The differential cases run two at a time (it.concurrent); the other files run one by one.
          maxConcurrency: 2,
          hookTimeout: 180_000,
          fileParallelism: false,
        },
      },
      {
        test: {
          name: "heavy",
          include: ["test/heavy/**/*.test.ts"],
          testTimeout: 600_000,
        },
      },
    ],
  },
});
