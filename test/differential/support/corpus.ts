/**
 * What both differential suites (the ApplicationSet controller's and the sync engine's) do with a
 * corpus of case files: parse each with the suite's schema, load them in file name order, pick
 * the cases a run asks for (`APPSET_DIFFERENTIAL`), and show a difference.
 */
import { appendFileSync, readdirSync, readFileSync } from "node:fs";
import { basename, join } from "node:path";
import { parse } from "yaml";
import type { z } from "zod";
import type { Difference, Verdict } from "./compare.js";

/** Parses one case file's text with `schema` (`name` is the file's base name). */
export function parseCaseWith<S extends z.ZodType>(schema: S, name: string, text: string): z.infer<S> & { readonly name: string } {
  const r = schema.safeParse(parse(text));
  if (!r.success) throw new Error(`case ${name}: ${r.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`);
  return { name, ...(r.data as object) } as z.infer<S> & { readonly name: string };
}

/** Every case file of `dir`, by file name order, parsed with `schema`. */
export function loadCasesWith<S extends z.ZodType>(schema: S, dir: string): (z.infer<S> & { readonly name: string })[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith(".yaml"))
    .sort()
    .map((f) => parseCaseWith(schema, basename(f, ".yaml"), readFileSync(join(dir, f), "utf8")));
}

/**
 * The cases `mode` picks: `subset` (those marked `subset: true`), `all`, or a comma-separated list
 * of names. With `strict`, a name of no case of `all` is an error (a suite that runs alone); else
 * it may name a case of the other suite.
 */
export function selectCases<C extends { readonly name: string; readonly subset: boolean }>(
  all: readonly C[],
  mode: string,
  strict: boolean,
): C[] {
  if (mode === "all") return [...all];
  if (mode === "subset") return all.filter((c) => c.subset);
  const names = new Set(mode.split(",").map((s) => s.trim()));
  const cases = all.filter((c) => names.has(c.name));
  if (strict && cases.length !== names.size)
    throw new Error(
      `APPSET_DIFFERENTIAL names cases that do not exist: ${[...names].filter((n) => !cases.some((c) => c.name === n)).join(", ")}`,
    );
  return cases;
}

/** A difference as a failure shows it. */
export function showDifference(d: Difference): string {
  return `  ${d.path}\n    argo: ${JSON.stringify(d.argo)}\n    ours: ${JSON.stringify(d.ours)}`;
}

/**
 * Appends a case's verdict to `$APPSET_DIFFERENTIAL_REPORT` (one JSON line, for the run's summary)
 * when it is set.
 */
export function reportVerdict(name: string, v: Verdict, startedMs: number, suite?: string): void {
  const report = process.env["APPSET_DIFFERENTIAL_REPORT"];
  if (!report) return;
  const line = {
    name,
    ...(suite !== undefined ? { suite } : {}),
    verdict: v.kind,
    ...(v.kind === "deviation" ? { ids: v.ids } : {}),
    seconds: Math.round((performance.now() - startedMs) / 100) / 10,
  };
  appendFileSync(report, JSON.stringify(line) + "\n");
}

/** What failed a case: a side that exited or did not settle, differences not documented in `deviationsFile`. */
export function caseProblems(
  sides: Readonly<Record<"argo" | "ours", { readonly crashed: boolean; readonly unsettled: readonly number[] }>>,
  v: Verdict,
  what: string,
  deviationsFile: string,
): string[] {
  const problems: string[] = [];
  for (const side of ["argo", "ours"] as const) {
    if (sides[side].crashed) problems.push(`${side}: the ${what} exited`);
    if (sides[side].unsettled.length > 0) problems.push(`${side}: did not settle after step(s) ${sides[side].unsettled.join(", ")}`);
  }
  if (v.kind === "different")
    problems.push(`differences not documented in ${deviationsFile}:\n${v.unexplained.map(showDifference).join("\n")}`);
  return problems;
}
