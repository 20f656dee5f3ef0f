import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { applyJsonPatch, applyMergePatch } from "./patching.js";
import type { JsonPatchOp } from "./ports.js";

describe("applyMergePatch", () => {
  it.each([
    // name: the RFC 7386 rule; target, patch: inputs; expected: result
    { name: "a new key is added", target: { a: 1 }, patch: { b: 2 }, expected: { a: 1, b: 2 } },
    { name: "null deletes a key", target: { a: 1, b: 2 }, patch: { a: null }, expected: { b: 2 } },
    { name: "nested objects merge", target: { m: { x: 1, y: 2 } }, patch: { m: { y: 3 } }, expected: { m: { x: 1, y: 3 } } },
    { name: "arrays are replaced whole", target: { l: [1, 2, 3] }, patch: { l: [9] }, expected: { l: [9] } },
    { name: "a non-object patch replaces the target", target: { a: 1 }, patch: "x", expected: "x" },
  ])("$name", ({ target, patch, expected }) => {
    expect(applyMergePatch(target, patch)).toEqual(expected);
  });

  it("never mutates its inputs and is idempotent", () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.jsonValue(), (target, patch) => {
        const t = structuredClone(target);
        const p = structuredClone(patch);
        const once = applyMergePatch(target, patch);
        expect(target).toEqual(t);
        expect(patch).toEqual(p);
        expect(applyMergePatch(once, patch)).toEqual(once);
      }),
    );
  });
});

describe("applyJsonPatch", () => {
  const doc = { metadata: { labels: { a: "1", "x/y": "2" } }, list: ["p", "q"] };

  it.each<{ name: string; ops: JsonPatchOp[]; expected: unknown }>([
    // name: the RFC 6902 rule; ops: the patch; expected: the result
    {
      name: "add sets a key",
      ops: [{ op: "add", path: "/metadata/labels/b", value: "3" }],
      expected: { ...doc, metadata: { labels: { ...doc.metadata.labels, b: "3" } } },
    },
    {
      name: "add with - appends to an array",
      ops: [{ op: "add", path: "/list/-", value: "r" }],
      expected: { ...doc, list: ["p", "q", "r"] },
    },
    { name: "add at an index inserts", ops: [{ op: "add", path: "/list/0", value: "o" }], expected: { ...doc, list: ["o", "p", "q"] } },
    { name: "replace swaps a value", ops: [{ op: "replace", path: "/list/1", value: "z" }], expected: { ...doc, list: ["p", "z"] } },
    {
      name: "remove deletes a key with an escaped slash",
      ops: [{ op: "remove", path: "/metadata/labels/x~1y" }],
      expected: { ...doc, metadata: { labels: { a: "1" } } },
    },
    { name: "a passing test changes nothing", ops: [{ op: "test", path: "/list/0", value: "p" }], expected: doc },
    {
      name: "move relocates a value",
      ops: [{ op: "move", from: "/list", path: "/items" }],
      expected: { metadata: doc.metadata, items: ["p", "q"] },
    },
    { name: "copy duplicates a value", ops: [{ op: "copy", from: "/list/0", path: "/first" }], expected: { ...doc, first: "p" } },
  ])("$name", ({ ops, expected }) => {
    expect(applyJsonPatch(doc, ops)).toEqual(expected);
  });

  it.each<{ name: string; ops: JsonPatchOp[]; message: string }>([
    // name: the failure; ops: the patch; message: the error
    { name: "a failing test aborts the patch", ops: [{ op: "test", path: "/list/0", value: "nope" }], message: "test failed at /list/0" },
    { name: "replacing a missing path fails", ops: [{ op: "replace", path: "/spec", value: 1 }], message: "path /spec does not exist" },
    {
      name: "removing a missing path fails",
      ops: [{ op: "remove", path: "/metadata/nope" }],
      message: "path /metadata/nope does not exist",
    },
    { name: "adding under a missing parent fails", ops: [{ op: "add", path: "/a/b", value: 1 }], message: "path /a does not exist" },
  ])("$name", ({ ops, message }) => {
    expect(() => applyJsonPatch(doc, ops)).toThrow(message);
  });

  it("leaves the input document untouched", () => {
    const before = structuredClone(doc);
    applyJsonPatch(doc, [{ op: "remove", path: "/list/0" }]);
    expect(doc).toEqual(before);
  });
});
