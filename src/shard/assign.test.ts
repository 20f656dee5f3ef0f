/**
 * The assignment rule's invariants as properties (exactly one owner, order independence, minimal
 * movement on leave and join), its hash against the published FNV-1a vectors, and its spread.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { assignment, fnv1a64, ownerOf } from "./assign.js";

/** Distinct member identities like the shell's (`<host>_<uuid>`), `min` to `max` of them. */
const members = (min = 1, max = 8): fc.Arbitrary<string[]> =>
  fc.uniqueArray(
    fc.tuple(fc.stringMatching(/^[a-z][a-z0-9-]{0,12}$/), fc.uuid()).map(([host, id]) => `${host}_${id}`),
    {
      minLength: min,
      maxLength: max,
    },
  );
const keys = fc.uniqueArray(fc.oneof(fc.uuid(), fc.string({ minLength: 1, maxLength: 40 })), { minLength: 1, maxLength: 60 });

/** key → owner. */
function owners(ks: readonly string[], ms: readonly string[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const [member, owned] of assignment(ks, ms)) for (const k of owned) out.set(k, member);
  return out;
}

describe("fnv1a64", () => {
  it.each([
    { text: "", hex: "cbf29ce484222325" },
    { text: "a", hex: "af63dc4c8601ec8c" },
    { text: "foobar", hex: "85944171f73967e8" },
    // multi-byte UTF-8 (2, 3 and 4 bytes), checked against a reference implementation over the encoded bytes
    { text: "é€😀", hex: "0a289ca40199fa06" },
  ])("hashes $text to the published 64-bit FNV-1a value", ({ text, hex }) => {
    expect(fnv1a64(text).toString(16).padStart(16, "0")).toBe(hex);
  });
});

describe("ownerOf and assignment", () => {
  it("give every key exactly one owner, a member, and agree with each other", () => {
    fc.assert(
      fc.property(keys, members(), (ks, ms) => {
        const byMember = assignment(ks, ms);
        expect([...byMember.keys()].sort()).toEqual([...ms].sort());
        const all = [...byMember.values()].flat();
        expect(all.sort()).toEqual([...ks].sort());
        for (const k of ks) expect(byMember.get(ownerOf(k, ms)!)).toContain(k);
      }),
    );
  });

  it("do not depend on the order of the members, nor on duplicates", () => {
    fc.assert(
      fc.property(keys, members(), fc.func(fc.integer()), (ks, ms, rank) => {
        const shuffled = [...ms].sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
        expect(owners(ks, [...shuffled, ...shuffled])).toEqual(owners(ks, ms));
      }),
    );
  });

  it("move only the leaving member's keys when a member leaves", () => {
    fc.assert(
      fc.property(keys, members(2), fc.nat(), (ks, ms, pick) => {
        const gone = ms[pick % ms.length]!;
        const before = owners(ks, ms);
        const after = owners(
          ks,
          ms.filter((m) => m !== gone),
        );
        for (const k of ks) if (before.get(k) !== gone) expect(after.get(k)).toBe(before.get(k));
        expect([...after.values()]).not.toContain(gone);
      }),
    );
  });

  it("move keys only to the joining member when a member joins", () => {
    fc.assert(
      fc.property(keys, members(2), (ks, ms) => {
        const [joining, ...rest] = ms as [string, ...string[]];
        const before = owners(ks, rest);
        const after = owners(ks, ms);
        for (const k of ks) if (after.get(k) !== joining) expect(after.get(k)).toBe(before.get(k));
      }),
    );
  });

  it("have no owner without members", () => {
    expect(ownerOf("k", [])).toBeUndefined();
    expect(assignment(["k"], []).size).toBe(0);
  });

  it("spread 3,000 UIDs over 3 members within 15% of even", () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.uuid(), { minLength: 3_000, maxLength: 3_000 }), members(3, 3), (ks, ms) => {
        for (const owned of assignment(ks, ms).values()) {
          expect(owned.length).toBeGreaterThanOrEqual(850);
          expect(owned.length).toBeLessThanOrEqual(1_150);
        }
      }),
      { numRuns: 20 },
    );
  });

  it("spreads sequential names (namespace/name keys differing in one character) as evenly", () => {
    const ks = Array.from({ length: 3_000 }, (_, i) => `team-a/appset-${String(i)}`);
    const counts = [...assignment(ks, ["appset-0", "appset-1", "appset-2"]).values()].map((o) => o.length);
    for (const n of counts) expect(Math.abs(n - 1_000)).toBeLessThanOrEqual(150);
  });
});
