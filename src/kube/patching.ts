/**
 * Local patch application for the in-memory fake: RFC 7386 JSON merge patch and RFC 6902 JSON
 * patch. Pure functions over JSON values; the input is never mutated.
 */
import type { JsonPatchOp } from "./ports.js";

type Json = unknown;

const isObject = (v: Json): v is Record<string, Json> => v !== null && typeof v === "object" && !Array.isArray(v);

/** RFC 7386: objects merge key by key, `null` deletes, anything else replaces. */
export function applyMergePatch(target: Json, patch: Json): Json {
  if (!isObject(patch)) return structuredClone(patch);
  const result: Record<string, Json> = isObject(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete result[k];
    else result[k] = applyMergePatch(result[k], v);
  }
  return result;
}

/** Thrown when a JSON patch cannot be applied (missing path, failed test). */
export class JsonPatchError extends Error {}

/** RFC 6902 applied to a copy of `doc`; throws {@link JsonPatchError} when an operation fails. */
export function applyJsonPatch(doc: Json, ops: readonly JsonPatchOp[]): Json {
  let result = structuredClone(doc);
  for (const op of ops) result = applyOne(result, op);
  return result;
}

function applyOne(doc: Json, op: JsonPatchOp): Json {
  switch (op.op) {
    case "add":
      return put(doc, parsePointer(op.path), structuredClone(op.value), "add");
    case "replace":
      get(doc, parsePointer(op.path));
      return put(doc, parsePointer(op.path), structuredClone(op.value), "replace");
    case "remove":
      return remove(doc, parsePointer(op.path));
    case "test":
      if (JSON.stringify(get(doc, parsePointer(op.path))) !== JSON.stringify(op.value)) {
        throw new JsonPatchError(`test failed at ${op.path}`);
      }
      return doc;
    case "copy":
      return put(doc, parsePointer(op.path), structuredClone(get(doc, parsePointer(op.from))), "add");
    case "move": {
      const value = get(doc, parsePointer(op.from));
      return put(remove(doc, parsePointer(op.from)), parsePointer(op.path), value, "add");
    }
  }
}

function parsePointer(pointer: string): string[] {
  if (pointer === "") return [];
  if (!pointer.startsWith("/")) throw new JsonPatchError(`invalid pointer ${pointer}`);
  return pointer
    .slice(1)
    .split("/")
    .map((t) => t.replaceAll("~1", "/").replaceAll("~0", "~"));
}

function get(doc: Json, path: readonly string[]): Json {
  let cur = doc;
  for (const token of path) {
    if (Array.isArray(cur) && /^\d+$/.test(token) && Number(token) < cur.length) cur = cur[Number(token)];
    else if (isObject(cur) && Object.hasOwn(cur, token)) cur = cur[token];
    else throw new JsonPatchError(`path /${path.join("/")} does not exist`);
  }
  return cur;
}

/** Returns the parent container of `path` (which must exist) and the last token. */
function parentOf(doc: Json, path: readonly string[]): { parent: Json; last: string } {
  const last = path[path.length - 1];
  if (last === undefined) throw new JsonPatchError("the root cannot be a target here");
  return { parent: get(doc, path.slice(0, -1)), last };
}

function put(doc: Json, path: readonly string[], value: Json, mode: "add" | "replace"): Json {
  if (path.length === 0) return value;
  const { parent, last } = parentOf(doc, path);
  if (Array.isArray(parent)) {
    const index = last === "-" ? parent.length : Number(last);
    if (!Number.isInteger(index) || index < 0 || index > parent.length) throw new JsonPatchError(`bad array index ${last}`);
    parent.splice(index, mode === "replace" ? 1 : 0, value);
  } else if (isObject(parent)) {
    parent[last] = value;
  } else {
    throw new JsonPatchError(`cannot add into a scalar at ${last}`);
  }
  return doc;
}

function remove(doc: Json, path: readonly string[]): Json {
  get(doc, path);
  const { parent, last } = parentOf(doc, path);
  if (Array.isArray(parent)) parent.splice(Number(last), 1);
  else if (isObject(parent)) delete parent[last];
  return doc;
}
