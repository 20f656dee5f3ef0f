/**
 * Reads the chart's values.yaml the way helm-docs does: a `# -- ` comment (continued by the `#`
 * lines after it) documents the key below it, and a documented key is one value, whatever it
 * holds. Builds the values table of the chart's README from it. Pure: text in, values out.
 */
import { parse } from "yaml";

/** One documented value: its dotted key, its default and what the comment says. */
export interface ChartValue {
  readonly key: string;
  readonly default: unknown;
  readonly description: string;
}

/** The chart's folder, from the repository root. */
export const CHART_PATH = "deploy/helm/appset";

/** Every documented value of `valuesYaml`, in file order. */
export function chartValues(valuesYaml: string): ChartValue[] {
  const values = parse(valuesYaml) as Record<string, unknown>;
  const out: ChartValue[] = [];
  const path: Array<{ indent: number; key: string }> = [];
  let comment: string[] | undefined;
  for (const line of valuesYaml.split("\n")) {
    const doc = /^\s*# -- (.*)$/.exec(line);
    const more = /^\s*#\s?(.*)$/.exec(line);
    const key = /^(\s*)([\w.-]+):/.exec(line);
    if (doc !== null) comment = [doc[1]!];
    else if (more !== null && comment !== undefined) comment.push(more[1]!);
    else if (key !== null) {
      const indent = key[1]!.length;
      while (path.length > 0 && path.at(-1)!.indent >= indent) path.pop();
      path.push({ indent, key: key[2]! });
      if (comment !== undefined) {
        const keys = path.map((p) => p.key);
        out.push({ key: keys.join("."), default: valueAt(values, keys), description: comment.join(" ") });
      }
      comment = undefined;
    } else if (line.trim() === "") comment = undefined;
  }
  return out;
}

/** The value at `keys` of `values`. */
export function valueAt(values: unknown, keys: readonly string[]): unknown {
  let v = values;
  for (const k of keys) v = (v as Record<string, unknown>)[k];
  return v;
}

function code(text: string): string {
  return `\`${text.replaceAll("|", "\\|")}\``;
}

/** A default as the table shows it: YAML's flow style, in one line. */
function shown(v: unknown): string {
  if (v === null) return "empty";
  return code(JSON.stringify(v));
}

const BEGIN = "<!-- BEGIN GENERATED: values -->";
const END = "<!-- END GENERATED: values -->";

/** The values table of the README, from values.yaml. */
export function valuesTable(valuesYaml: string): string {
  const rows = chartValues(valuesYaml).map((v) => `| ${code(v.key)} | ${shown(v.default)} | ${v.description.replaceAll("|", "\\|")} |\n`);
  return `${BEGIN}\n| Key | Default | Description |\n| --- | --- | --- |\n${rows.join("")}${END}`;
}

/** The README with its values table regenerated from `valuesYaml`. */
export function withGeneratedValues(readme: string, valuesYaml: string): string {
  const start = readme.indexOf(BEGIN);
  const end = readme.indexOf(END);
  if (start < 0 || end < start) throw new Error(`${CHART_PATH}/README.md must contain the markers ${BEGIN} and ${END}`);
  return readme.slice(0, start) + valuesTable(valuesYaml) + readme.slice(end + END.length);
}
