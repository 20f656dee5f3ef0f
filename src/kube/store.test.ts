import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { IndexedStore, type Entry } from "./store.js";

interface Obj {
  name: string;
  owners: string[];
}

const entry = (name: string, owners: string[], resourceVersion = "1"): Entry<Obj> => ({ obj: { name, owners }, resourceVersion, uid: undefined });
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
    { name: "adding an index twice fails", act: (s: IndexedStore<Obj>) => s.addIndex("owner", () => []), message: "index owner already exists" },
    { name: "querying an unknown index fails", act: (s: IndexedStore<Obj>) => s.byIndex("nope", "x"), message: "no index named nope" },
  ])("$name", ({ act, message }) => {
    const store = new IndexedStore<Obj>();
    store.addIndex("owner", (o) => o.owners);
    expect(() => act(store)).toThrow(message);
  });

  it("keeps every index equal to a recomputation from the stored objects after any sequence of writes", () => {
    const op = fc.oneof(
      fc.record({ kind: fc.constant("set" as const), key: fc.constantFrom("a", "b", "c", "d"), owners: fc.array(fc.constantFrom("o1", "o2", "o3"), { maxLength: 3 }) }),
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
