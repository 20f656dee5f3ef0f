/**
 * The side-by-side benchmark's summary: per scenario and size, each controller's median (and range
 * over the runs) of every figure, and the ratios ours / Argo CD's and ours / floor.
 */
import type { Measured } from "./scenarios.js";

/** One run's figures. */
export interface Row extends Measured {
  readonly scenario: string;
  readonly size: number;
  readonly side: "argo" | "ours" | "floor";
}

type Figure = Exclude<keyof Measured, never>;

const FIGURES: ReadonlyArray<[Figure, string, number]> = [
  ["seconds", "time (s)", 1],
  ["firstSeconds", "time to the first Application (s)", 1],
  ["statusSeconds", "time to ResourcesUpToDate (s)", 1],
  ["writes", "writes served", 0],
  ["reads", "reads served", 0],
  ["gitRequests", "Git requests served", 0],
  ["startRssMiB", "VmRSS at start (MiB)", 0],
  ["hwmMiB", "VmHWM (MiB)", 0],
  ["settledRssMiB", "VmRSS settled (MiB)", 0],
  ["cpuSeconds", "CPU (s)", 2],
  ["gitCpuSeconds", "CPU of Git work: Argo CD's repo-server, our git processes (s)", 2],
];

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

function cell(rows: readonly Row[], f: Figure, digits: number): { text: string; median?: number } {
  const xs = rows.map((r) => r[f]).filter((x): x is number => typeof x === "number");
  if (xs.length === 0) return { text: "—" };
  const m = median(xs);
  const range = xs.length > 1 ? ` (${Math.min(...xs).toFixed(digits)}–${Math.max(...xs).toFixed(digits)})` : "";
  return { text: `${m.toFixed(digits)}${range}`, median: m };
}

const ratio = (a: number | undefined, b: number | undefined): string =>
  a !== undefined && b !== undefined && b > 0 ? (a / b).toFixed(2) : "—";

/** Prints one Markdown table per scenario and size. */
export function printSummary(rows: readonly Row[]): void {
  const groups = new Map<string, Row[]>();
  for (const r of rows) {
    if (r.side === "floor") continue;
    const k = `${r.scenario} @ ${String(r.size)}`;
    groups.set(k, [...(groups.get(k) ?? []), r]);
  }
  for (const [title, group] of groups) {
    const floorRows = rows.filter((r) => r.side === "floor" && r.size === group[0]!.size);
    console.log(`\n### ${title} (${String(group.filter((r) => r.side === "ours").length)} runs each)`);
    console.log("| figure | Argo CD | ours | ours / Argo CD | floor | ours / floor |\n| --- | --- | --- | --- | --- | --- |");
    for (const [f, label, digits] of FIGURES) {
      const a = cell(
        group.filter((r) => r.side === "argo"),
        f,
        digits,
      );
      const o = cell(
        group.filter((r) => r.side === "ours"),
        f,
        digits,
      );
      if (a.median === undefined && o.median === undefined) continue;
      const fl = (f === "seconds" || f === "cpuSeconds") && title.startsWith("fanout") ? cell(floorRows, f, digits) : { text: "—" };
      console.log(`| ${label} | ${a.text} | ${o.text} | ${ratio(o.median, a.median)} | ${fl.text} | ${ratio(o.median, fl.median)} |`);
    }
  }
}
