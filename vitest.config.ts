import { defineConfig } from "vitest/config";

// The test layers, one vitest project each:
// - "unit": pure logic (src/**/*.test.ts beside the code, and test/unit): no child processes, no
//   sockets or servers, no waiting on the real clock (time moves through FakeClock). ESLint keeps
//   node:child_process, node:net, node:http(s), ssh2 and the oracle and cluster helpers out of it.
// - "integration" (test/integration): real git, ssh and HTTP servers, the Go oracle, CLI runs.
// - "e2e": one real control plane for the whole run, started by the global setup; it also runs
//   the security suite (test/security: tenants' attacks on the engine). The only real
//   times asserted are contracts, not speed: a leader does not take over before the lease allows
//   it, steps down within its renew deadline, a released lease is taken at the next retry, a
//   SIGTERM'd process exits within its stop grace. Speed goals live in bench/ and print figures.
// - "argocd": beside Argo CD v3.6: its CRDs on a control plane of their own, its application
//   controller, repo-server and applicationset controller run by the tests; the differential suite
//   runs its fast subset there unless APPSET_DIFFERENTIAL says otherwise.
// - "heavy": long suites, run on demand with `npm run test:heavy`.
// - "chaos": faults on a private control plane per file (kill -9, connection cuts, apiserver
//   restarts, outages, malformed input), run on demand with `npm run test:chaos`; bounded in count
//   and time, seeded like the rest.
// Every project draws its randomness from one fixed seed (APPSET_TEST_SEED overrides it), set for
// fast-check by test/support/vitest-setup.ts.
const setupFiles = ["test/support/vitest-setup.ts"];

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: "unit",
          setupFiles,
          include: ["src/**/*.test.ts", "test/unit/**/*.test.ts"],
        },
      },
      {
        test: {
          name: "integration",
          setupFiles,
          include: ["test/integration/**/*.test.ts"],
          testTimeout: 60_000,
          hookTimeout: 60_000,
        },
      },
      {
        test: {
          name: "e2e",
          setupFiles,
          // test/security: the tenancy suite, attacks on the real control plane with the engine running.
          include: ["test/e2e/**/*.test.ts", "test/security/**/*.test.ts"],
          globalSetup: ["test/cluster/global-setup.ts"],
          testTimeout: 120_000,
          hookTimeout: 180_000,
          fileParallelism: false,
        },
      },
      {
        test: {
          name: "argocd",
          setupFiles,
          include: ["test/argocd/**/*.test.ts", "test/differential/**/*.test.ts", "test/differential-sync/**/*.test.ts"],
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
          setupFiles,
          include: ["test/heavy/**/*.test.ts"],
          testTimeout: 600_000,
        },
      },
      {
        test: {
          name: "chaos",
          setupFiles,
          include: ["test/chaos/**/*.test.ts"],
          testTimeout: 1_800_000,
          hookTimeout: 180_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
