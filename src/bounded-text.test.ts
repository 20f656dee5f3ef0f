import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { boundText, cutMarker } from "./bounded-text.js";

describe("boundText", () => {
  it.each([
    { name: "a short text as it is", text: "short", max: 10, want: "short" },
    { name: "a text of exactly the limit as it is", text: "x".repeat(40), max: 40, want: "x".repeat(40) },
    { name: "a long text cut with a marker", text: "x".repeat(100), max: 40, want: `${"x".repeat(17)}… (83 more characters)` },
  ])("keeps $name", ({ text, max, want }) => {
    expect(boundText(text, max)).toBe(want);
  });

  it("never splits a surrogate pair", () => {
    const text = `${"a".repeat(17)}😀${"b".repeat(100)}`;
    const out = boundText(text, 40);
    expect(out.startsWith("a".repeat(17) + "…")).toBe(true);
  });

  it("is never longer than the limit, and keeps the text's beginning", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 500 }), fc.integer({ min: 30, max: 300 }), (text, max) => {
        const out = boundText(text, max);
        expect(out.length).toBeLessThanOrEqual(max);
        if (text.length <= max) expect(out).toBe(text);
        else expect(text.startsWith(out.slice(0, out.lastIndexOf("… (")))).toBe(true);
      }),
    );
  });

  it("says how many characters were cut", () => {
    const out = boundText("y".repeat(1_000), 100);
    const kept = out.indexOf("…");
    expect({ kept, out }).toEqual({ kept: 100 - cutMarker(1_000).length, out: "y".repeat(kept) + cutMarker(1_000 - kept) });
  });
});
