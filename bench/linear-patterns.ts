// Benchmark (run on demand): how long a tenant's pathological pattern takes to match a
// 200-character path, with the backtracking RegExp/minimatch matchers the Git generator and the
// webhook used before and with the RE2 (linear-time) ones they use now. Each old case runs in a
// worker stopped after a deadline, since a backtracking match may not end in any useful time.
//
//   bash -c 'source scripts/node-env.sh; npx tsx bench/linear-patterns.ts [deadlineSeconds=5]'
import { performance } from "node:perf_hooks";
import { Worker } from "node:worker_threads";
import { compileDoublestar, compilePathMatch, compilePathspec } from "../src/git/glob.js";
import { repoURLMatches } from "../src/webhook/repourl.js";

const deadlineMs = Number(process.argv[2] ?? "5") * 1000;
const stars = (n: number): string => `${"*a".repeat(n)}*b`;
const flat = "a".repeat(200);
const deep = `${"a/".repeat(99)}aa`;
const url = `https://github.com/${"x".repeat(200)}`;
const holes = (n: number): string => `https://github.com/${"{{.a}}x".repeat(n)}{{.a}}y`;

interface Case {
  readonly name: string;
  /** The former matcher, as source run in a worker (`minimatch` and the inputs are in scope). */
  readonly old: string;
  /** The current matcher. */
  readonly now: () => boolean;
}

const oldRegExp = (pattern: string, star: string): string => {
  const src = pattern.replace(/\*/g, star);
  return `new RegExp(${JSON.stringify(`^${src}$`)}, "s").test(input)`;
};

const cases = (n: number): Case[] => [
  { name: `path.Match, ${n} stars`, old: oldRegExp(stars(n), "[^/]*"), now: () => compilePathMatch(stars(n))(flat) },
  { name: `pathspec, ${n} stars`, old: oldRegExp(stars(n), ".*"), now: () => compilePathspec(stars(n))(flat) },
  {
    name: `doublestar, ${n} stars`,
    old: `minimatch(input, ${JSON.stringify(stars(n))}, { dot: true, nonegate: true, nocomment: true })`,
    now: () => compileDoublestar(stars(n))(flat),
  },
  {
    name: `doublestar, ${n} ** segments`,
    old: `minimatch(deep, ${JSON.stringify(`${"**/a/".repeat(n)}b`)}, { dot: true, nonegate: true, nocomment: true })`,
    now: () => compileDoublestar(`${"**/a/".repeat(n)}b`)(deep),
  },
  {
    name: `webhook repoURL, ${n} holes`,
    old: `new RegExp(${JSON.stringify(`^https://github\\.com/${".*x".repeat(n)}.*y$`)}, "s").test(url)`,
    now: () => repoURLMatches(holes(n), [url]),
  },
];

const WORKER = `
const { parentPort, workerData } = require("node:worker_threads");
const { minimatch } = require("minimatch");
const { flat: input, deep, url, expr } = workerData;
const start = performance.now();
const answer = eval(expr);
parentPort.postMessage({ ms: performance.now() - start, answer });
`;

/** The old matcher's time in ms, or undefined when the deadline stopped it. */
async function timeOld(expr: string): Promise<number | undefined> {
  const worker = new Worker(WORKER, { eval: true, workerData: { flat, deep, url, expr } });
  const timer = new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), deadlineMs));
  const done = new Promise<number>((resolve, reject) => {
    worker.once("message", (m: { ms: number }) => resolve(m.ms));
    worker.once("error", reject);
  });
  const ms = await Promise.race([done, timer]);
  await worker.terminate();
  return ms;
}

/** The current matcher's time in ms, compiling included (compiled patterns are memoised: the first run). */
function timeNow(run: () => boolean): number {
  const start = performance.now();
  run();
  return performance.now() - start;
}

for (const n of [2, 3, 4, 10, 20]) {
  for (const c of cases(n)) {
    const old = await timeOld(c.old);
    const oldText = old === undefined ? `> ${deadlineMs} ms (stopped)` : `${old.toFixed(1)} ms`;
    console.log(`${c.name.padEnd(32)} before: ${oldText.padStart(22)}   now: ${timeNow(c.now).toFixed(1).padStart(7)} ms`);
  }
}
