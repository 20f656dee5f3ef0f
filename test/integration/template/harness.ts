// Shared pieces of the oracle comparisons: the corpus case shape, the engine under test with a fixed
// clock, and the comparison of our result with Go's.
import { TemplateEngine, TemplateRenderError } from "../../../src/template/engine.js";
import type { OracleResult } from "../../oracle/oracle.js";

/** One corpus case. */
export interface CorpusCase {
  /** What the case shows. */
  name: string;
  /** The template text (one field). */
  template: string;
  /** Params (defaults to the shared generator-like set). */
  params?: Record<string, unknown>;
  /** goTemplateOptions. */
  options?: string[];
  /** false for fasttemplate mode. */
  goTemplate?: boolean;
  /** Compare by shape (regex on both outputs) instead of bytes, for time and random functions. */
  shape?: RegExp;
  /**
   * A documented, deliberate deviation: "budget" means Go fails (or runs away) and ours must stop
   * with a render-budget error; a string means both fail and the messages agree up to that marker
   * (for YAML parser messages, which come from a different YAML library).
   */
  deviation?: string;
}

/** Our result in the oracle's shape. */
export function renderOurs(engine: TemplateEngine, c: CorpusCase, params: Record<string, unknown>): OracleResult {
  try {
    return {
      output: engine.replace(
        c.template,
        JSON.parse(JSON.stringify(params)) as Record<string, unknown>,
        c.goTemplate ?? true,
        c.options ?? [],
      ),
    };
  } catch (e) {
    if (e instanceof TemplateRenderError) return { error: e.message };
    return { error: `UNEXPECTED EXCEPTION: ${e instanceof Error ? e.stack : String(e)}` };
  }
}

/** A fresh engine with a fixed clock. */
export function testEngine(): TemplateEngine {
  return new TemplateEngine({ now: () => 1_750_000_000_000, clock: () => performance.now() });
}

/** Describes a mismatch, or null when both engines agree. */
export function difference(c: CorpusCase, ours: OracleResult, go: OracleResult): string | null {
  if (c.deviation === "budget") {
    return ours.error?.includes("render budget exceeded")
      ? null
      : `expected a budget error, got ${JSON.stringify(ours.error ?? ours.output)}`;
  }
  if (c.deviation !== undefined) {
    const cut = (m: string | undefined): string | undefined => m?.slice(0, m.indexOf(c.deviation!));
    return go.error !== undefined && cut(ours.error) === cut(go.error)
      ? null
      : `error mismatch: go=${go.error} ours=${ours.error ?? ours.output}`;
  }
  if (c.shape) {
    if (go.error !== undefined || ours.error !== undefined)
      return ours.error === undefined || go.error === undefined ? `error mismatch: go=${go.error} ours=${ours.error}` : null;
    if (!c.shape.test(go.output ?? "")) return `go output ${JSON.stringify(go.output)} does not match shape ${c.shape}`;
    if (!c.shape.test(ours.output ?? "")) return `our output ${JSON.stringify(ours.output)} does not match shape ${c.shape}`;
    return null;
  }
  if (go.error !== undefined)
    return ours.error === go.error ? null : `error: go=${JSON.stringify(go.error)} ours=${JSON.stringify(ours.error ?? ours.output)}`;
  return ours.output === go.output ? null : `output: go=${JSON.stringify(go.output)} ours=${JSON.stringify(ours.error ?? ours.output)}`;
}
