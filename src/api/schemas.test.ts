import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { FIXTURES, loadFixture } from "../../test/fixtures/load.js";
import {
  ApiParseError,
  formatPath,
  INVALID_OBJECT_REASON,
  parseApplication,
  parseApplicationSet,
  parseAppProject,
  parseNestedMatrixGenerator,
  parseNestedMergeGenerator,
  parseSecret,
  type ParseResult,
} from "./index.js";

type Obj = Record<string, unknown>;

/** Unwraps a successful parse, failing the test with the error message otherwise. */
function ok<T>(res: ParseResult<T>): T {
  if (!res.ok) throw new Error(`expected a successful parse: ${res.error.message}`);
  return res.value;
}

/** Unwraps a failed parse. */
function failure<T>(res: ParseResult<T>): ApiParseError {
  if (res.ok) throw new Error("expected the parse to fail");
  return res.error;
}

/** JSON serialization, as the kube adapter sends objects. */
function serialize(v: unknown): unknown {
  return JSON.parse(JSON.stringify(v)) as unknown;
}

const PARSERS: Record<string, (o: unknown) => ParseResult<unknown>> = {
  [FIXTURES.applicationSetAllGenerators]: parseApplicationSet,
  [FIXTURES.applicationSetRollingSync]: parseApplicationSet,
  [FIXTURES.applicationWithStatus]: parseApplication,
  [FIXTURES.appProject]: parseAppProject,
  [FIXTURES.clusterSecret]: parseSecret,
};

describe("parsing the example objects", () => {
  it.each(Object.entries(PARSERS).map(([name, parse]) => ({ name, parse })))(
    "parses $name and serializes it back unchanged",
    ({ name, parse }) => {
      const raw = loadFixture(name);
      expect(serialize(ok(parse(raw)))).toEqual(raw);
    },
  );

  it("types every generator kind of the all-generators example", () => {
    const appset = ok(parseApplicationSet(loadFixture(FIXTURES.applicationSetAllGenerators)));
    const kinds = appset.spec.generators.flatMap((g) => Object.keys(g).filter((k) => k !== "selector"));
    expect(new Set(kinds)).toEqual(
      new Set(["list", "clusters", "git", "scmProvider", "clusterDecisionResource", "pullRequest", "plugin", "matrix", "merge"]),
    );
  });

  it("reads RollingSync steps with integer and percentage maxUpdate values", () => {
    const appset = ok(parseApplicationSet(loadFixture(FIXTURES.applicationSetRollingSync)));
    const steps = appset.spec.strategy?.rollingSync?.steps ?? [];
    expect(steps.map((s) => s.maxUpdate)).toEqual([undefined, 0, "10%"]);
    expect(appset.status?.applicationStatus?.map((s) => s.status)).toEqual(["Healthy", "Waiting", "Pending"]);
  });
});

describe("nested matrix and merge generators", () => {
  it("decodes a nested merge from the raw JSON kept in a top-level matrix", () => {
    const appset = ok(parseApplicationSet(loadFixture(FIXTURES.applicationSetAllGenerators)));
    const matrix = appset.spec.generators.find((g) => g.matrix !== undefined)?.matrix;
    const nested = ok(parseNestedMergeGenerator(matrix?.generators[1]?.merge));
    expect(nested.mergeKeys).toEqual(["server"]);
    expect(nested.generators.map((g) => Object.keys(g))).toEqual([["clusters"], ["list"]]);
  });

  it("decodes a nested matrix from the raw JSON kept in a top-level merge", () => {
    const appset = ok(parseApplicationSet(loadFixture(FIXTURES.applicationSetAllGenerators)));
    const merge = appset.spec.generators.find((g) => g.merge !== undefined)?.merge;
    const nested = ok(parseNestedMatrixGenerator(merge?.generators[1]?.matrix));
    expect(nested.generators).toHaveLength(2);
    expect(nested.generators[1]?.git?.files?.[0]?.path).toBe("applicationset/examples/merge/*.json");
  });

  it.each([
    { name: "a string instead of an object", raw: "matrix", path: "" },
    { name: "generators that are not a list", raw: { generators: { list: {} } }, path: "generators" },
    { name: "a nested merge without mergeKeys", raw: { generators: [] }, path: "mergeKeys", merge: true },
  ])("rejects $name with an error naming the path", ({ raw, path, merge }) => {
    const err = failure(merge === true ? parseNestedMergeGenerator(raw) : parseNestedMatrixGenerator(raw));
    expect(err.issues.map((i) => i.path)).toContain(path);
  });
});

describe("invalid objects", () => {
  const appset = (): Obj & { spec: Obj } => loadFixture(FIXTURES.applicationSetRollingSync) as Obj & { spec: Obj };
  it.each([
    {
      name: "an unknown applicationsSync policy",
      mutate: (o: Obj & { spec: Obj }) => void (o.spec["syncPolicy"] = { applicationsSync: "bogus" }),
      path: "spec.syncPolicy.applicationsSync",
    },
    {
      name: "a missing template",
      mutate: (o: Obj & { spec: Obj }) => void delete o.spec["template"],
      path: "spec.template",
    },
    {
      name: "generators that are not a list",
      mutate: (o: Obj & { spec: Obj }) => void (o.spec["generators"] = { list: {} }),
      path: "spec.generators",
    },
    {
      name: "a boolean maxUpdate",
      mutate: (o: Obj & { spec: Obj }) =>
        void (o.spec["strategy"] = { type: "RollingSync", rollingSync: { steps: [{ maxUpdate: true }] } }),
      path: "spec.strategy.rollingSync.steps[0].maxUpdate",
    },
    {
      name: "a git generator without repoURL",
      mutate: (o: Obj & { spec: Obj }) => void (o.spec["generators"] = [{ git: { revision: "HEAD" } }]),
      path: "spec.generators[0].git.repoURL",
    },
    {
      name: "a non-string label value",
      mutate: (o: Obj & { spec: Obj }) => void ((o["metadata"] as Obj)["labels"] = { "team/a": 1 }),
      path: 'metadata.labels["team/a"]',
    },
  ])("rejects $name with an error that names the failing path", ({ mutate, path }) => {
    const obj = appset();
    mutate(obj);
    const err = failure(parseApplicationSet(obj));
    expect(err).toBeInstanceOf(ApiParseError);
    expect(err.reason).toBe(INVALID_OBJECT_REASON);
    expect(err.issues.map((i) => i.path)).toContain(path);
    expect(err.message).toMatch(/^ApplicationSet argocd\/guestbook is invalid: /);
    expect(err.message).toContain(`${path}: `);
  });

  it("names an Application without a project", () => {
    const obj = loadFixture(FIXTURES.applicationWithStatus);
    delete (obj["spec"] as Obj)["project"];
    const err = failure(parseApplication(obj));
    expect(err.message).toContain("Application argocd/engineering-qa-guestbook is invalid: spec.project: ");
  });

  it("rejects an object of another kind", () => {
    const obj = loadFixture(FIXTURES.applicationWithStatus);
    expect(failure(parseApplicationSet(obj)).issues.map((i) => i.path)).toContain("kind");
  });

  it("never throws, whatever it is given", () => {
    fc.assert(
      fc.property(fc.anything(), (v) => {
        const res = parseApplicationSet(v);
        return res.ok || res.error instanceof ApiParseError;
      }),
    );
  });
});

describe("formatPath", () => {
  it.each([
    { name: "an empty path", path: [], expected: "" },
    { name: "object keys", path: ["spec", "template"], expected: "spec.template" },
    { name: "array indexes", path: ["spec", "generators", 0, "list"], expected: "spec.generators[0].list" },
    {
      name: "keys that are not identifiers",
      path: ["metadata", "labels", "app.kubernetes.io/name"],
      expected: 'metadata.labels["app.kubernetes.io/name"]',
    },
  ])("formats $name", ({ path, expected }) => {
    expect(formatPath(path)).toBe(expected);
  });
});

// --- Round trip of fields we do not model ------------------------------------------------------

/** Keys no schema declares (prefixed so they never collide with a real field). */
const extraKey = fc.string({ minLength: 1, maxLength: 8 }).map((s) => `x-${s}`);
const extraValue = fc.jsonValue({ maxDepth: 2 }).filter((v) => v !== null);
const extras = fc.dictionary(extraKey, extraValue, { maxKeys: 3 });

/** Paths of objects (inside the RollingSync example) where unknown fields are added. */
const DEPTHS: ReadonlyArray<readonly (string | number)[]> = [
  [],
  ["metadata"],
  ["spec"],
  ["spec", "generators", 0],
  ["spec", "generators", 0, "list"],
  ["spec", "strategy", "rollingSync", "steps", 1],
  ["spec", "strategy", "rollingSync", "steps", 1, "matchExpressions", 0],
  ["spec", "template", "spec", "source"],
  ["spec", "template", "spec", "destination"],
  ["status", "conditions", 0],
  ["status", "applicationStatus", 2],
  ["status", "resources", 0, "health"],
];

function objectAt(root: Obj, path: readonly (string | number)[]): Obj {
  let node: unknown = root;
  for (const step of path) node = (node as Record<string | number, unknown>)[step];
  return node as Obj;
}

describe("fields we do not model", () => {
  it("survive parse and serialize at every depth of an ApplicationSet", () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.constantFrom(...DEPTHS), extras), { minLength: 1, maxLength: 6 }), (additions) => {
        const raw = loadFixture(FIXTURES.applicationSetRollingSync);
        for (const [path, fields] of additions) Object.assign(objectAt(raw, path), fields);
        expect(serialize(ok(parseApplicationSet(raw)))).toEqual(serialize(raw));
      }),
    );
  });

  it("survive in an Application's operation and status written by a newer Argo CD", () => {
    const raw = loadFixture(FIXTURES.applicationWithStatus);
    const status = raw["status"] as Obj;
    status["newTopLevel"] = { a: [1, 2] };
    (status["operationState"] as Obj)["newField"] = "x";
    (status["operationState"] as { syncResult: { resources: Obj[] } }).syncResult.resources[0]!["newer"] = true;
    (raw["operation"] as Obj)["newOperation"] = { x: 1 };
    expect(serialize(ok(parseApplication(raw)))).toEqual(raw);
  });
});
