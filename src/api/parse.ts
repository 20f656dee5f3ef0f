/**
 * Parsing at the edge: raw JSON from the apiserver or a webhook becomes a typed object, or an
 * {@link ApiParseError} naming every failing path. Zod errors never escape this module.
 */
import type { z } from "zod";
import { AppSetError } from "../errors.js";
import { INVALID_OBJECT_REASON } from "./appset-status.js";

/** One schema violation: the dotted path (`spec.generators[0].list`) and what is wrong there. */
export interface ParseIssue {
  readonly path: string;
  readonly message: string;
}

/** The result of parsing: the typed value, or the error. Never throws. */
export type ParseResult<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: ApiParseError };

/** A resource that does not match its schema. `reason` is always {@link INVALID_OBJECT_REASON}. */
export class ApiParseError extends AppSetError {
  readonly issues: readonly ParseIssue[];

  constructor(what: string, issues: readonly ParseIssue[]) {
    super(INVALID_OBJECT_REASON, `${what} is invalid: ${issues.map(formatIssue).join("; ")}`);
    this.issues = issues;
  }
}

function formatIssue(issue: ParseIssue): string {
  return issue.path === "" ? issue.message : `${issue.path}: ${issue.message}`;
}

/** Formats a zod path as `a.b[0].c`; keys that are not identifiers are quoted (`labels["a/b"]`). */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = "";
  for (const key of path) {
    if (typeof key === "number") out += `[${String(key)}]`;
    else if (typeof key === "string" && /^[A-Za-z_$][\w$-]*$/.test(key)) out += out === "" ? key : `.${key}`;
    else out += `[${JSON.stringify(String(key))}]`;
  }
  return out;
}

/** Names an object for messages: `Kind namespace/name`, or just `Kind` when it has no name. */
export function describeObject(kind: string, obj: unknown): string {
  const meta = isRecord(obj) && isRecord(obj["metadata"]) ? obj["metadata"] : {};
  const name = typeof meta["name"] === "string" ? meta["name"] : "";
  const ns = typeof meta["namespace"] === "string" ? meta["namespace"] : "";
  if (name === "") return kind;
  return ns === "" ? `${kind} ${name}` : `${kind} ${ns}/${name}`;
}

/** True for a non-null, non-array object. */
export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/**
 * Parses `input` with `schema`. On failure, the error message starts with `what` (for example
 * "ApplicationSet argocd/guestbook") and lists each failing path.
 */
export function parseWith<S extends z.ZodType>(schema: S, input: unknown, what: string): ParseResult<z.output<S>> {
  const res = schema.safeParse(input);
  if (res.success) return { ok: true, value: res.data };
  const issues = res.error.issues.map((i) => ({ path: formatPath(i.path), message: i.message }));
  return { ok: false, error: new ApiParseError(what, issues) };
}
