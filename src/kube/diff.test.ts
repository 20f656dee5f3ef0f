import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { diffRelist, type CachedVersion, type ListedVersion, type RelistOp } from "./diff.js";

const item = (key: string, resourceVersion: string, uid: string | undefined = `uid-${key}`): ListedVersion => ({
  key,
  resourceVersion,
  uid,
});
const cache = (...items: ListedVersion[]): Map<string, CachedVersion> => new Map(items.map((i) => [i.key, i]));
const summary = (ops: RelistOp<ListedVersion>[]): string[] =>
  ops.map((o) => (o.type === "delete" ? `delete ${o.key}` : `${o.type} ${o.item.key}@${o.item.resourceVersion}`));

describe("diffRelist", () => {
  it.each([
    // name: what the row shows; cached: the cache before; listed: the fresh list; expected: ops in order
    {
      name: "an empty cache adds everything listed, in list order",
      cached: cache(),
      listed: [item("ns/b", "2"), item("ns/a", "1")],
      expected: ["add ns/b@2", "add ns/a@1"],
    },
    {
      name: "an unchanged list yields nothing",
      cached: cache(item("ns/a", "1"), item("ns/b", "2")),
      listed: [item("ns/a", "1"), item("ns/b", "2")],
      expected: [],
    },
    {
      name: "a changed resourceVersion yields an update",
      cached: cache(item("ns/a", "1")),
      listed: [item("ns/a", "7")],
      expected: ["update ns/a@7"],
    },
    {
      name: "a vanished object yields a delete",
      cached: cache(item("ns/a", "1"), item("ns/b", "2")),
      listed: [item("ns/b", "2")],
      expected: ["delete ns/a"],
    },
    {
      name: "a recreated object (new uid) yields delete then add",
      cached: cache(item("ns/a", "1", "u1")),
      listed: [item("ns/a", "9", "u2")],
      expected: ["delete ns/a", "add ns/a@9"],
    },
    {
      name: "an unknown uid on either side falls back to the version",
      cached: cache({ key: "ns/a", resourceVersion: "1", uid: undefined }),
      listed: [item("ns/a", "2", "u2")],
      expected: ["update ns/a@2"],
    },
    {
      name: "an empty list deletes everything cached",
      cached: cache(item("a", "1"), item("b", "1")),
      listed: [],
      expected: ["delete a", "delete b"],
    },
    {
      name: "a key listed twice counts once, the last occurrence winning",
      cached: cache(),
      listed: [item("ns/a", "1"), item("ns/a", "2")],
      expected: ["add ns/a@2"],
    },
    {
      name: "adds and updates come before deletes",
      cached: cache(item("x", "1"), item("y", "1")),
      listed: [item("y", "2"), item("z", "1")],
      expected: ["update y@2", "add z@1", "delete x"],
    },
  ])("$name", ({ cached, listed, expected }) => {
    expect(summary(diffRelist(cached, listed))).toEqual(expected);
  });

  const arbItem = fc.record({
    key: fc.constantFrom("a", "b", "c", "d", "e", "f"),
    resourceVersion: fc.constantFrom("1", "2", "3"),
    uid: fc.constantFrom("u1", "u2", undefined),
  });

  /** Applies ops to a copy of the cache, as the informer does. */
  function apply(cached: Map<string, CachedVersion>, ops: RelistOp<ListedVersion>[]): Map<string, CachedVersion> {
    const next = new Map(cached);
    for (const op of ops) {
      if (op.type === "delete") next.delete(op.key);
      else next.set(op.item.key, op.item);
    }
    return next;
  }

  it("applying the diff makes the cache equal the list, and diffing again yields nothing", () => {
    fc.assert(
      fc.property(fc.array(arbItem, { maxLength: 8 }), fc.array(arbItem, { maxLength: 8 }), (before, listed) => {
        const cached = cache(...before);
        const after = apply(cached, diffRelist(cached, listed));
        const expected = cache(...listed);
        expect([...after.keys()].sort()).toEqual([...expected.keys()].sort());
        for (const [k, v] of expected) expect(after.get(k)?.resourceVersion).toBe(v.resourceVersion);
        expect(diffRelist(after, listed)).toEqual([]);
      }),
    );
  });

  it("never adds a key that is cached with the same uid and version", () => {
    fc.assert(
      fc.property(fc.array(arbItem, { maxLength: 8 }), (items) => {
        const cached = cache(...items);
        const adds = diffRelist(
          cached,
          [...cached.entries()].map(([key, v]) => ({ key, ...v })),
        ).filter((o) => o.type === "add");
        expect(adds).toEqual([]);
      }),
    );
  });
});
