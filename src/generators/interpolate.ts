/**
 * Matrix interpolation (docs/generators.md#matrix): every string of the second child's spec (map
 * keys included) is rendered with a parameter set of the first child. `values` entries (not their
 * keys) are pre-resolved with `missingkey=error` in goTemplate mode, and an entry that fails on a
 * missing key or field is left verbatim so the child can resolve it later against its own
 * parameters; any other failure names the key, as Argo CD words it (`failed to pre-resolve Values
 * key "…": …`).
 */
import { isRecord } from "../api/index.js";
import { errorMessage } from "../errors.js";
import { goQuote } from "../template/go/format.js";
import { TemplateRenderError } from "../template/index.js";
import { GeneratorError, wrapError } from "./errors.js";
import type { ParamSet, StringRenderer, TemplateMode } from "./types.js";

interface Walk {
  readonly params: ParamSet;
  readonly mode: TemplateMode;
  readonly renderer: StringRenderer;
}

const MISSING_KEY = /map has no entry for key|can't evaluate field/;

function renderString(s: string, w: Walk): string {
  return w.renderer.replace(s, w.params, w.mode.goTemplate, w.mode.options);
}

function renderValuesEntry(key: string, s: string, w: Walk): string {
  try {
    if (!w.mode.goTemplate) return renderString(s, w);
    return w.renderer.replace(s, w.params, true, [...w.mode.options.filter((o) => !o.startsWith("missingkey=")), "missingkey=error"]);
  } catch (err) {
    if (err instanceof TemplateRenderError && MISSING_KEY.test(err.message)) return s;
    throw new Error(`failed to pre-resolve Values key ${goQuote(key)}: ${errorMessage(err)}`, { cause: err });
  }
}

function walk(v: unknown, w: Walk): unknown {
  if (typeof v === "string") return renderString(v, w);
  if (Array.isArray(v)) return v.map((x) => walk(x, w));
  if (!isRecord(v)) return v;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) {
    out[renderString(k, w)] = k === "values" && isRecord(x) ? walkValues(x, w) : walk(x, w);
  }
  return out;
}

/** A generator's `values` map: string entries get the missing-key-tolerant rendering. */
function walkValues(values: Record<string, unknown>, w: Walk): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(values)) out[k] = typeof x === "string" ? renderValuesEntry(k, x, w) : walk(x, w);
  return out;
}

/**
 * Renders a generator entry with `params`. An empty `params` returns the entry unchanged.
 * Template errors become a GeneratorError.
 */
export function interpolateEntry<T extends Record<string, unknown>>(
  entry: T,
  params: ParamSet,
  mode: TemplateMode,
  renderer: StringRenderer,
): T {
  if (Object.keys(params).length === 0) return entry;
  try {
    return walk(entry, { params, mode, renderer }) as T;
  } catch (err) {
    if (err instanceof GeneratorError) throw err;
    throw wrapError("failed to replace parameters in generator", err);
  }
}
