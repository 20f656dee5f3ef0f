import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { IndexedStore, isOlderVersion, type Entry } from "./store.js";

interface Obj {
  name: string;
  owners: string[];
}

const entry = (name: string, owners: string[], resourceVersion = "1"): Entry<Obj> => ({
  obj: { name, owners },
  resourceVersion,
  uid: undefined,
});
const names = (objs: Obj[]): string[] => objs.map((o) => o.name).sort();

describe("IndexedStore", () => {
  it("finds objects by index value, including objects stored before the index was added", () => {
    const store = new IndexedStore<Obj>();
    store.set("a", entry("a", ["o1"]));
    store.addIndex("owner", (o) => o.owners);
    store.set("b", entry("b", ["o1", "o2"]));
    expect(names(store.byIndex("owner", "o1"))).toEqual(["a", "b"]);
    expect(names(store.byIndex("owner", "o2"))).toEqual(["b"]);
    expect(store.byIndex("owner", "nobody")).toEqual([]);
  });

  it("moves an object between index values when it is replaced, and drops it when deleted", () => {
    const store = new IndexedStore<Obj>();
    store.addIndex("owner", (o) => o.owners);
    store.set("a", entry("a", ["o1"]));
    const old = store.set("a", entry("a", ["o2"], "2"));
    expect(old?.resourceVersion).toBe("1");
    expect(store.byIndex("owner", "o1")).toEqual([]);
    expect(names(store.byIndex("owner", "o2"))).toEqual(["a"]);
    expect(store.delete("a")?.resourceVersion).toBe("2");
    expect(store.byIndex("owner", "o2")).toEqual([]);
    expect(store.size).toBe(0);
  });

  it.each([
    // name: the misuse; act: what the caller does; message: the error
    {
      name: "adding an index twice fails",
      act: (s: IndexedStore<Obj>) => s.addIndex("owner", () => []),
      message: "index owner already exists",
    },
    { name: "querying an unknown index fails", act: (s: IndexedStore<Obj>) => s.byIndex("nope", "x"), message: "no index named nope" },
  ])("$name", ({ act, message }) => {
    const store = new IndexedStore<Obj>();
    store.addIndex("owner", (o) => o.owners);
    expect(() => act(store)).toThrow(message);
  });

  it("keeps every index equal to a recomputation from the stored objects after any sequence of writes", () => {
    const op = fc.oneof(
      fc.record({
        kind: fc.constant("set" as const),
        key: fc.constantFrom("a", "b", "c", "d"),
        owners: fc.array(fc.constantFrom("o1", "o2", "o3"), { maxLength: 3 }),
      }),
      fc.record({ kind: fc.constant("delete" as const), key: fc.constantFrom("a", "b", "c", "d") }),
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 30 }), fc.integer({ min: 0, max: 30 }), (ops, indexAt) => {
        const store = new IndexedStore<Obj>();
        ops.forEach((o, i) => {
          if (i === indexAt) store.addIndex("owner", (x) => x.owners);
          if (o.kind === "set") store.set(o.key, entry(o.key, o.owners));
          else store.delete(o.key);
        });
        if (indexAt >= ops.length) store.addIndex("owner", (x) => x.owners);
        for (const owner of ["o1", "o2", "o3"]) {
          const expected = store.list().filter((x) => x.owners.includes(owner));
          expect(names(store.byIndex("owner", owner))).toEqual(names(expected));
        }
      }),
    );
  });
});

describe("isOlderVersion", () => {
  it.each([
    // name; a; b; whether a is known to be older than b
    { name: "a smaller integer is older", a: "9", b: "10", older: true },
    { name: "integers compare numerically, not as text", a: "10", b: "9", older: false },
    { name: "an equal version is not older", a: "42", b: "42", older: false },
    { name: "integers beyond 2^53 compare exactly", a: "9007199254740993", b: "9007199254740994", older: true },
    { name: "an opaque incoming version is accepted", a: "abc", b: "10", older: false },
    { name: "an opaque held version accepts anything", a: "1", b: "v2", older: false },
    { name: "an empty version is never older", a: "", b: "10", older: false },
    { name: "a negative number is not an etcd version", a: "-1", b: "10", older: false },
  ])("$name", ({ a, b, older }) => {
    expect(isOlderVersion(a, b)).toBe(older);
  });
});

describe("IndexedStore never goes backwards", () => {
  type Step = (s: IndexedStore<Obj>) => void;
  const put =
    (rv: string): Step =>
    (s) => {
      if (s.accepts("a", rv)) s.set("a", entry("a", [], rv));
    };
  const evict: Step = (s) => s.delete("a", true);
  const remove: Step = (s) => s.delete("a");
  const relisted =
    (rv: string): Step =>
    (s) =>
      s.forgetTombstones(rv);

  it.each([
    // name; steps; the resourceVersion held afterwards (undefined: absent)
    { name: "a newer version replaces the held one", steps: [put("5"), put("7")], held: "7" },
    { name: "an older version does not replace a newer written one", steps: [put("7"), put("5")], held: "7" },
    { name: "an opaque version replaces anything", steps: [put("7"), put("x1")], held: "x1" },
    { name: "an eviction refuses the evicted version and older ones", steps: [put("7"), evict, put("7"), put("6")], held: undefined },
    { name: "an eviction lets a newer version (a re-creation) in", steps: [put("7"), evict, put("9")], held: "9" },
    { name: "a plain delete leaves no tombstone", steps: [put("7"), remove, put("6")], held: "6" },
    { name: "a relist at a newer version forgets the tombstone", steps: [put("7"), evict, relisted("8"), put("6")], held: "6" },
    { name: "a relist at an older version keeps the tombstone", steps: [put("7"), evict, relisted("6"), put("6")], held: undefined },
  ])("$name", ({ steps, held }) => {
    const store = new IndexedStore<Obj>();
    for (const step of steps) step(store);
    expect(store.get("a")?.resourceVersion).toBe(held);
  });

  it("holds the newest integer version offered, whatever the order versions and evictions arrive in", () => {
    const op = fc.oneof(fc.record({ put: fc.integer({ min: 1, max: 1_000 }) }), fc.constant({ evict: true as const }));
    fc.assert(
      fc.property(fc.array(op, { maxLength: 40 }), (ops) => {
        const store = new IndexedStore<Obj>();
        let newest = 0;
        for (const o of ops) {
          const before = Number(store.get("a")?.resourceVersion ?? "0");
          if ("put" in o) {
            put(String(o.put))(store);
            newest = Math.max(newest, o.put);
            const after = Number(store.get("a")?.resourceVersion ?? "0");
            if (store.get("a") !== undefined) expect(after).toBeGreaterThanOrEqual(before);
          } else evict(store);
        }
        const held = store.get("a");
        if (held !== undefined) expect(Number(held.resourceVersion)).toBe(newest);
      }),
    );
  });
});
