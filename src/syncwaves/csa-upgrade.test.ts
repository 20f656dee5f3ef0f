import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { DEFAULT_CSA_MANAGER, needsMigration, unionFields, upgradeManagedFields, type ManagedFieldsEntry } from "./csa-upgrade.js";

const CSA = DEFAULT_CSA_MANAGER;
const SSA = "argocd-controller";
const data = (...keys: string[]): Record<string, unknown> => ({ "f:data": Object.fromEntries(keys.map((k) => [`f:${k}`, {}])) });
const entry = (
  manager: string,
  operation: string,
  fieldsV1: Record<string, unknown>,
  extra: Partial<ManagedFieldsEntry> = {},
): ManagedFieldsEntry => ({
  manager,
  operation,
  apiVersion: "v1",
  fieldsType: "FieldsV1",
  fieldsV1,
  ...extra,
});

describe("client-side to server-side apply field migration", () => {
  it("turns the client-side manager into the apply manager when there is none", () => {
    expect(upgradeManagedFields([entry(CSA, "Update", data("a", "b"))], CSA, SSA)).toEqual([entry(SSA, "Apply", data("a", "b"))]);
  });

  it("unions the client-side fields into an existing apply manager and drops the client-side entry", () => {
    const out = upgradeManagedFields(
      [entry(SSA, "Apply", data("a")), entry("other", "Update", data("x")), entry(CSA, "Update", data("b"))],
      CSA,
      SSA,
    );
    expect(out).toEqual([entry(SSA, "Apply", data("a", "b")), entry("other", "Update", data("x"))]);
  });

  it("takes fields only from the entry of the apply manager's API version, but drops every client-side entry", () => {
    const out = upgradeManagedFields(
      [entry(SSA, "Apply", data("a")), entry(CSA, "Update", data("old"), { apiVersion: "v1beta1" })],
      CSA,
      SSA,
    );
    expect(out).toEqual([entry(SSA, "Apply", data("a"))]);
  });

  it("moves the apply manager's own Update entry (Argo CD's client-side applies) into its Apply entry", () => {
    expect(upgradeManagedFields([entry(SSA, "Apply", data("a")), entry(SSA, "Update", data("b"))], SSA, SSA)).toEqual([
      entry(SSA, "Apply", data("a", "b")),
    ]);
    expect(upgradeManagedFields([entry(SSA, "Update", data("b"))], SSA, SSA)).toEqual([entry(SSA, "Apply", data("b"))]);
  });

  it.each([
    { name: "no managed fields", entries: undefined },
    { name: "no client-side manager", entries: [entry(SSA, "Apply", data("a")), entry("kube-controller-manager", "Update", data("x"))] },
    { name: "the client-side manager only on a subresource", entries: [entry(CSA, "Update", data("a"), { subresource: "status" })] },
    { name: "the client-side name with an Apply operation", entries: [entry(CSA, "Apply", data("a"))] },
  ])("changes nothing with $name", ({ entries }) => {
    expect(needsMigration(entries, CSA)).toBe(false);
    expect(upgradeManagedFields(entries, CSA, SSA)).toBeUndefined();
  });

  const trie: fc.Arbitrary<Record<string, unknown>> = fc.letrec((tie) => ({
    node: fc.dictionary(fc.constantFrom("f:a", "f:b", "f:c", "."), fc.oneof({ maxDepth: 3 }, fc.constant({}), tie("node")), { maxKeys: 3 }),
  })).node;

  /** Every path of a trie, as strings. */
  const paths = (t: Record<string, unknown>, prefix = ""): string[] =>
    Object.entries(t).flatMap(([k, v]) => [`${prefix}/${k}`, ...paths(v as Record<string, unknown>, `${prefix}/${k}`)]);

  it("the union of two field sets holds exactly the paths of both", () => {
    fc.assert(
      fc.property(trie, trie, (a, b) => {
        const u = new Set(paths(unionFields(a, b)));
        expect(u).toEqual(new Set([...paths(a), ...paths(b)]));
      }),
    );
  });
});
