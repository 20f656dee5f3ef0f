/**
 * The table examples of the docs: template tables (each row rendered by the real template engine)
 * and metric tables (compared with the metrics the controller registers, built as
 * src/cli/controller.ts builds them).
 */
import { LEASE_NAME } from "../../../src/leader/index.js";
import { AppSetMetrics, ControllerMetrics, createMetricsRegistry, RestClientMetrics, ShardMetrics } from "../../../src/metrics/index.js";
import { TemplateEngine } from "../../../src/template/index.js";
import { ARGO_FUNC_MAP } from "../../../src/template/functions/index.js";
import { errorMessage } from "../../../src/errors.js";
import type { TableBlock } from "./markdown.js";

/** The text of a table cell written as a code span (`` `x` `` or ``` `` x `` ```); other cells as they are. */
export function codeSpan(cell: string): string {
  const m = /^(`+)\s?([\s\S]*?)\s?\1$/.exec(cell);
  return m === null ? cell : m[2]!;
}

function column(table: TableBlock, name: string): number {
  const i = table.header.findIndex((h) => h.toLowerCase() === name);
  if (i < 0) throw new Error(`table at line ${String(table.line)} has no "${name}" column (has ${table.header.join(", ")})`);
  return i;
}

/**
 * Checks a template table (columns Params, Template, Output): each row's template, rendered with the
 * row's JSON params in the marker's mode (`go` or `fast`, then goTemplateOptions), gives the output.
 * An output written `error: TEXT` expects a render error containing TEXT.
 */
export function checkTemplateTable(table: TableBlock, args: readonly string[]): string[] {
  const [mode, ...options] = args;
  if (mode !== "go" && mode !== "fast")
    throw new Error(`template table at line ${String(table.line)}: mode must be go or fast, not ${String(mode)}`);
  const [p, t, o] = [column(table, "params"), column(table, "template"), column(table, "output")];
  const engine = new TemplateEngine({ now: () => 0, random: () => 0 });
  const failures: string[] = [];
  for (const row of table.rows) {
    const params = JSON.parse(codeSpan(row[p] ?? "{}")) as Record<string, unknown>;
    const template = codeSpan(row[t] ?? "");
    const want = codeSpan(row[o] ?? "");
    let got: string;
    try {
      got = engine.replace(template, params, mode === "go", options);
    } catch (err) {
      got = `error: ${errorMessage(err)}`;
    }
    const ok = want.startsWith("error: ") ? got.startsWith("error: ") && got.includes(want.slice(7)) : got === want;
    if (!ok) failures.push(`template ${template}: documented ${JSON.stringify(want)}, got ${JSON.stringify(got)}`);
  }
  return failures;
}

/** One metric as documented: name, type, and label names. */
export interface MetricRow {
  readonly name: string;
  readonly type: string;
  readonly labels: readonly string[];
}

/** The AppSet label key the metrics are built with, shown in the docs as `label_<key>`. */
const SAMPLE_LABEL = "key";

/** The metrics the controller registers (Node.js process metrics aside), sorted by name. */
export async function controllerMetrics(): Promise<MetricRow[]> {
  const registry = createMetricsRegistry({ processMetrics: false });
  new ControllerMetrics({ registry, controller: "applicationset", maxConcurrentReconciles: 10, leaseName: LEASE_NAME });
  new AppSetMetrics({ registry, list: () => [], namespaceAllowed: () => true, labels: [SAMPLE_LABEL] });
  new RestClientMetrics(registry);
  new ShardMetrics({ registry, members: () => 0, owned: () => 0, ownedApplications: () => 0 });
  const json = await registry.getMetricsAsJSON();
  return json
    .map((m) => {
      const metric = registry.getSingleMetric(m.name) as unknown as { labelNames?: string[] };
      const labels = (metric.labelNames ?? []).map((l) => (l === `label_${SAMPLE_LABEL}` ? "label_<key>" : l));
      return { name: m.name, type: String(m.type), labels };
    })
    .sort((a, b) => (a.name < b.name ? -1 : 1));
}

/** The rows of a metrics table (columns Name, Type, Labels), sorted by name. */
export function documentedMetrics(table: TableBlock): MetricRow[] {
  const [n, t, l] = [column(table, "name"), column(table, "type"), column(table, "labels")];
  const spans = (cell: string): string[] => [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1]!);
  return table.rows
    .map((r) => ({ name: codeSpan(r[n] ?? ""), type: r[t] ?? "", labels: spans(r[l] ?? "") }))
    .sort((a, b) => (a.name < b.name ? -1 : 1));
}

/** Whether the function `name` exists and, called, fails with "not supported". */
function unsupported(name: string): boolean {
  const fn = ARGO_FUNC_MAP[name];
  if (fn === undefined) return false;
  try {
    fn.call([], { now: () => 0, random: () => 0, charge: () => undefined, chargeList: () => undefined });
    return false;
  } catch (err) {
    return errorMessage(err).includes("not supported");
  }
}

/**
 * Checks a list of goTemplate function names (whitespace-separated): with no mode, the list is
 * exactly the engine's function map; `absent`, none of them is in it; `unsupported`, each is in it
 * and fails with "not supported".
 */
export function checkFunctionList(text: string, mode: string | undefined): string[] {
  const names = text.split(/\s+/).filter((w) => w !== "");
  const known = Object.keys(ARGO_FUNC_MAP);
  switch (mode) {
    case undefined: {
      const missing = known.filter((k) => !names.includes(k));
      const extra = names.filter((n) => !known.includes(n));
      return [...missing.map((m) => `${m} is available but not listed`), ...extra.map((e) => `${e} is listed but not available`)];
    }
    case "absent":
      return names.filter((n) => known.includes(n)).map((n) => `${n} is listed as removed but is available`);
    case "unsupported":
      return names.filter((n) => !unsupported(n)).map((n) => `${n} does not fail with "not supported"`);
    default:
      return [`unknown functions mode ${mode}`];
  }
}
