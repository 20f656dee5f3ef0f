import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { RolloutRun } from "../../api/index.js";
import { newestFirst, nextSequence } from "./order.js";

interface Look {
  readonly startedAt?: string;
  readonly created?: string;
  readonly sequence?: number;
  readonly phase?: string;
  readonly haltReason?: string;
}

const run = (name: string, o: Look = {}): RolloutRun => ({
  apiVersion: "progressivesync.appset.dev/v1alpha1",
  kind: "RolloutRun",
  metadata: { name, namespace: "argocd", ...(o.created === undefined ? {} : { creationTimestamp: o.created }) },
  spec: { applicationSet: "guestbook", ...(o.sequence === undefined ? {} : { sequence: o.sequence }) },
  ...(o.startedAt === undefined && o.phase === undefined
    ? {}
    : {
        status: {
          ...(o.startedAt === undefined ? {} : { startedAt: o.startedAt }),
          ...(o.phase === undefined ? {} : { phase: o.phase }),
          ...(o.haltReason === undefined ? {} : { haltReason: o.haltReason }),
        },
      }),
});

const T10 = "2026-01-01T10:00:00Z";

describe("newestFirst", () => {
  // [ case, runs, names newest first ]
  const cases: [string, RolloutRun[], string[]][] = [
    ["latest start first", [run("a", { startedAt: T10 }), run("b", { startedAt: "2026-01-01T11:00:00Z" })], ["b", "a"]],
    [
      "start wins over creation",
      [
        run("a", { startedAt: "2026-01-01T12:00:00Z", created: "2026-01-01T09:00:00Z" }),
        run("b", { startedAt: "2026-01-01T11:00:00Z", created: "2026-01-01T10:00:00Z" }),
      ],
      ["a", "b"],
    ],
    [
      "same start: the later creation",
      [run("a", { startedAt: T10, created: "2026-01-01T09:00:00Z" }), run("b", { startedAt: T10, created: "2026-01-01T09:30:00Z" })],
      ["b", "a"],
    ],
    [
      "a run without status yet counts from its creation",
      [run("old", { startedAt: T10, created: T10 }), run("new", { created: "2026-01-01T12:00:00Z" })],
      ["new", "old"],
    ],
    [
      "same start: the one another replaced is the older",
      [
        run("z", { startedAt: T10, phase: "Aborted", haltReason: "Superseded" }),
        run("a", { startedAt: T10, phase: "Halted", haltReason: "FailureBudgetExceeded" }),
      ],
      ["a", "z"],
    ],
    ["all equal: by name, descending", [run("a"), run("c"), run("b")], ["c", "b", "a"]],
    [
      "same start: the higher sequence, whatever the names and phases",
      [run("zz", { startedAt: T10, sequence: 1, phase: "Completed" }), run("aa", { startedAt: T10, sequence: 2, phase: "Halted" })],
      ["aa", "zz"],
    ],
    [
      "the sequence wins over the start (a clock stepped back)",
      [run("a", { startedAt: "2026-01-01T11:00:00Z", sequence: 3 }), run("b", { startedAt: T10, sequence: 4 })],
      ["b", "a"],
    ],
    [
      "a run from before sequences is older than any run with one",
      [run("legacy", { startedAt: "2026-01-01T12:00:00Z" }), run("new", { startedAt: T10, sequence: 1 })],
      ["new", "legacy"],
    ],
  ];
  it.each(cases)("%s", (_, runs, names) => {
    expect(newestFirst(runs).map((r) => r.metadata.name)).toEqual(names);
  });

  it("is one order whatever the order given, and puts sequences descending", () => {
    const look = fc.record(
      {
        sequence: fc.integer({ min: 1, max: 5 }),
        startedAt: fc.constantFrom(T10, "2026-01-01T10:00:01Z"),
        phase: fc.constantFrom("Running", "Completed", "Halted", "Aborted"),
        haltReason: fc.constantFrom("Superseded", "FailureBudgetExceeded"),
      },
      { requiredKeys: [] },
    );
    const runs = fc.uniqueArray(fc.tuple(fc.stringMatching(/^[a-z]{1,4}$/), look), { selector: ([n]) => n, maxLength: 8 });
    fc.assert(
      fc.property(runs, fc.func(fc.integer()), (entries, shuffleKey) => {
        const given = entries.map(([n, o]) => run(n, o));
        const shuffled = [...given].sort((a, b) => shuffleKey(a.metadata.name) - shuffleKey(b.metadata.name));
        const names = newestFirst(given).map((r) => r.metadata.name);
        expect(newestFirst(shuffled).map((r) => r.metadata.name)).toEqual(names);
        const seqs = newestFirst(given).map((r) => r.spec.sequence ?? 0);
        expect(seqs).toEqual([...seqs].sort((a, b) => b - a));
      }),
    );
  });
});

describe("nextSequence", () => {
  it.each([
    { name: "the first run", runs: [], next: 1 },
    { name: "runs from before sequences", runs: [run("a"), run("b")], next: 1 },
    { name: "one more than the highest", runs: [run("a", { sequence: 3 }), run("b", { sequence: 7 }), run("c")], next: 8 },
  ])("$name: $next", ({ runs, next }) => {
    expect(nextSequence(runs)).toBe(next);
  });
});
