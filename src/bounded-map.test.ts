import { describe, expect, it } from "vitest";
import { SizedMemo } from "./bounded-map.js";

type Step = readonly [key: string, size: number];

describe("a memo bounded in entries and in size", () => {
  it.each<{ name: string; maxEntries: number; maxSize: number; steps: readonly Step[]; kept: string[]; size: number }>([
    // name; limits; values set in order (key, size); keys kept, oldest first; total size kept
    {
      name: "everything fits",
      maxEntries: 3,
      maxSize: 10,
      steps: [
        ["a", 3],
        ["b", 3],
      ],
      kept: ["a", "b"],
      size: 6,
    },
    {
      name: "the oldest goes when the size is over",
      maxEntries: 10,
      maxSize: 10,
      steps: [
        ["a", 4],
        ["b", 4],
        ["c", 4],
      ],
      kept: ["b", "c"],
      size: 8,
    },
    {
      name: "as many of the oldest go as needed",
      maxEntries: 10,
      maxSize: 10,
      steps: [
        ["a", 3],
        ["b", 3],
        ["c", 3],
        ["d", 9],
      ],
      kept: ["d"],
      size: 9,
    },
    {
      name: "the oldest goes when the count is over",
      maxEntries: 2,
      maxSize: 100,
      steps: [
        ["a", 1],
        ["b", 1],
        ["c", 1],
      ],
      kept: ["b", "c"],
      size: 2,
    },
    {
      name: "a value larger than the budget is not kept and evicts nothing",
      maxEntries: 10,
      maxSize: 10,
      steps: [
        ["a", 4],
        ["big", 11],
      ],
      kept: ["a"],
      size: 4,
    },
    {
      name: "setting a key again replaces its size and makes it the newest",
      maxEntries: 10,
      maxSize: 10,
      steps: [
        ["a", 4],
        ["b", 4],
        ["a", 2],
        ["c", 4],
      ],
      kept: ["b", "a", "c"],
      size: 10,
    },
    {
      name: "a value of exactly the budget is kept alone",
      maxEntries: 10,
      maxSize: 10,
      steps: [
        ["a", 1],
        ["b", 10],
      ],
      kept: ["b"],
      size: 10,
    },
  ])("$name", ({ maxEntries, maxSize, steps, kept, size }) => {
    const memo = new SizedMemo<string>({ maxEntries, maxSize, sizeOf: (v) => v.length });
    for (const [key, n] of steps) memo.set(key, "x".repeat(n));
    expect(memo.keys()).toEqual(kept);
    expect(memo.count).toBe(kept.length);
    expect(memo.size).toBe(size);
  });

  it("forgets a deleted key and its size", () => {
    const memo = new SizedMemo<Buffer>({ maxEntries: 10, maxSize: 100, sizeOf: (b) => b.length });
    memo.set("a", Buffer.alloc(7));
    memo.delete("a");
    memo.delete("never");
    expect({ has: memo.has("a"), get: memo.get("a"), size: memo.size }).toEqual({ has: false, get: undefined, size: 0 });
  });
});
