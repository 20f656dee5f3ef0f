// Benchmark (run on demand): how long the render budget takes to stop each kind of runaway template
// on the real clock (the default budget's goal: well under a second each). The unit tests check
// which limit stops each one; this prints the time it took.
//
//   bash -c 'source scripts/node-env.sh; npx tsx bench/template-budget.ts'
import { performance } from "node:perf_hooks";
import { TemplateEngine, TemplateRenderError } from "../src/template/engine.js";

const RUNAWAYS = [
  { name: "an unbounded range", template: "{{ range 100000000000 }}x{{ end }}" },
  { name: "a huge string", template: '{{ repeat 1000000000 "abc" }}' },
  { name: "a very large output", template: "{{ range 10000000 }}0123456789{{ end }}" },
  { name: "infinite template recursion", template: '{{ define "r" }}{{ template "r" . }}{{ end }}{{ template "r" . }}' },
];
const ROUNDS = 5;

for (const { name, template } of RUNAWAYS) {
  const times: number[] = [];
  let limit = "no error";
  for (let i = 0; i < ROUNDS; i++) {
    const engine = new TemplateEngine({ now: () => 0, clock: () => performance.now() });
    const start = performance.now();
    try {
      engine.replace(template, { a: 1 }, true);
    } catch (err) {
      limit =
        err instanceof TemplateRenderError && err.budget
          ? (/render budget exceeded: (.*)$/.exec(err.message)?.[1] ?? err.message)
          : String(err);
    }
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  const median = times[Math.floor(times.length / 2)]!;
  console.log(
    `${name.padEnd(30)} stopped in ${median.toFixed(1).padStart(7)} ms (median of ${ROUNDS}, max ${times[times.length - 1]!.toFixed(1)} ms): ${limit}`,
  );
}
