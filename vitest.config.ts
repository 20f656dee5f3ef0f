import { defineConfig } from "vitest/config";

// Three projects: "unit" (pure logic, no processes), "e2e" (one real control plane for the whole
// run, started by the global setup), "heavy" (long suites, run on demand with `npm run test:heavy`).
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
          name: "heavy",
          include: ["test/heavy/**/*.test.ts"],
          testTimeout: 600_000,
        },
      },
    ],
  },
});
