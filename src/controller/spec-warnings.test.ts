import { describe, expect, it } from "vitest";
import type { ApplicationSet } from "../api/index.js";
import type { RenderedApplication } from "../generators/applications.js";
import { appSet, rendered } from "../../test/support/controller-builders.js";
import { specWarningCondition, specWarnings } from "./spec-warnings.js";

const rs = (steps: unknown[]): ApplicationSet["spec"]["strategy"] => ({ type: "RollingSync", rollingSync: { steps } }) as never;
const step = (maxUpdate: unknown) => ({ matchExpressions: [{ key: "env", operator: "In", values: ["dev"] }], maxUpdate });

interface Row {
  name: string;
  spec?: Partial<ApplicationSet["spec"]>;
  annotations?: Record<string, string>;
  apps?: RenderedApplication[];
  progressiveSyncs?: boolean;
  /** Expected [reason, message] pairs, in order. */
  want: [string, string][];
}

const rows: Row[] = [
  { name: "a plain list generator warns of nothing", want: [] },
  {
    name: "no generators",
    spec: { generators: [] },
    want: [
      [
        "NoGenerators",
        "spec.generators is empty: no Application is generated, and under the sync and create-delete policies existing ones are deleted",
      ],
    ],
  },
  {
    name: "an empty entry",
    spec: { generators: [{ list: { elements: [] } }, {}] },
    want: [
      [
        "UnrecognizedGenerator",
        "spec.generators[1] sets no generator: nothing is generated, changed or deleted until it does; the known generators are list, clusters, git, scmProvider, clusterDecisionResource, pullRequest, matrix, merge, plugin, oci, and the CRD schema drops any other key, so check the spelling",
      ],
    ],
  },
  {
    name: "an entry the schema pruned, named from kubectl's last-applied configuration",
    spec: { generators: [{}] },
    annotations: {
      "kubectl.kubernetes.io/last-applied-configuration": JSON.stringify({ spec: { generators: [{ lists: {}, selector: {} }] } }),
    },
    want: [
      [
        "UnrecognizedGenerator",
        "spec.generators[0] sets no generator (it was applied with lists): nothing is generated, changed or deleted until it does; the known generators are list, clusters, git, scmProvider, clusterDecisionResource, pullRequest, matrix, merge, plugin, oci, and the CRD schema drops any other key, so check the spelling",
      ],
    ],
  },
  {
    name: "an entry holding a generator this controller does not run names it",
    spec: { generators: [{ helmChart: { repoURL: "oci://r/a", revision: "1.0.0" } }] },
    want: [
      [
        "UnrecognizedGenerator",
        "spec.generators[0] sets no generator (it names helmChart): nothing is generated, changed or deleted until it does; the known generators are list, clusters, git, scmProvider, clusterDecisionResource, pullRequest, matrix, merge, plugin, oci, and the CRD schema drops any other key, so check the spelling",
      ],
    ],
  },
  {
    name: "a last-applied annotation that is not JSON names nothing",
    spec: { generators: [{}] },
    annotations: { "kubectl.kubernetes.io/last-applied-configuration": "{not json" },
    want: [
      [
        "UnrecognizedGenerator",
        "spec.generators[0] sets no generator: nothing is generated, changed or deleted until it does; the known generators are list, clusters, git, scmProvider, clusterDecisionResource, pullRequest, matrix, merge, plugin, oci, and the CRD schema drops any other key, so check the spelling",
      ],
    ],
  },
  {
    name: "two generators in one entry",
    spec: { generators: [{ list: { elements: [] }, clusters: {} }] },
    want: [
      [
        "SeveralGeneratorsInOneEntry",
        "spec.generators[0] sets 2 generators (list, clusters): each runs as a separate generator, not combined; use a matrix or merge generator to combine them",
      ],
    ],
  },
  {
    name: "a list without elements, at the top and inside a matrix",
    spec: { generators: [{ list: {} }, { matrix: { generators: [{ clusters: {} }, { list: {} }] } }] as never },
    want: [
      ["ListWithoutElements", "spec.generators[0].list has neither elements nor elementsYaml: it generates nothing"],
      ["ListWithoutElements", "spec.generators[1].matrix.generators[1].list has neither elements nor elementsYaml: it generates nothing"],
    ],
  },
  { name: "a list with elementsYaml only", spec: { generators: [{ list: { elementsYaml: "- a: b" } }] as never }, want: [] },
  {
    name: "an unknown strategy type",
    spec: { strategy: { type: "Unknown" } },
    want: [
      [
        "StrategyFallsBackToAllAtOnce",
        'spec.strategy.type "Unknown" is neither AllAtOnce nor RollingSync: every Application is updated at once (AllAtOnce)',
      ],
    ],
  },
  {
    name: "an empty strategy type with steps",
    spec: { strategy: { type: "", rollingSync: { steps: [] } } },
    want: [
      [
        "StrategyFallsBackToAllAtOnce",
        "spec.strategy.type is empty, so the rollingSync steps are ignored: every Application is updated at once (AllAtOnce)",
      ],
    ],
  },
  {
    name: "an explicitly empty strategy type",
    spec: { strategy: { type: "" } },
    want: [["StrategyFallsBackToAllAtOnce", "spec.strategy.type is empty: every Application is updated at once (AllAtOnce)"]],
  },
  { name: "a strategy block with only deletionOrder", spec: { strategy: { deletionOrder: "Reverse" } }, want: [] },
  { name: "AllAtOnce", spec: { strategy: { type: "AllAtOnce" } }, want: [] },
  {
    name: "RollingSync without its block",
    spec: { strategy: { type: "RollingSync" } },
    progressiveSyncs: true,
    want: [
      [
        "StrategyFallsBackToAllAtOnce",
        "spec.strategy.type is RollingSync but spec.strategy.rollingSync is missing: every Application is updated at once (AllAtOnce)",
      ],
    ],
  },
  {
    name: "RollingSync on a controller without progressive syncs",
    spec: { strategy: rs([step(1)]) },
    progressiveSyncs: false,
    want: [
      [
        "ProgressiveSyncsDisabled",
        "spec.strategy is RollingSync but this controller runs without --enable-progressive-syncs: the steps are ignored and every Application is updated at once",
      ],
    ],
  },
  {
    name: "maxUpdate values that stop a step or read otherwise than written",
    spec: { strategy: rs([step(1), step(0), step(-2), step("0%"), step("-10%"), step("150%"), step("100%"), step("abc")]) },
    progressiveSyncs: true,
    want: [
      [
        "MaxUpdateStopsStep",
        "spec.strategy.rollingSync.steps[2].maxUpdate -2 is negative: as with 0, no Application of step 3 syncs and the rollout stops there",
      ],
      ["MaxUpdateOutOfRange", 'spec.strategy.rollingSync.steps[4].maxUpdate "-10%" is negative: step 5 updates one Application at a time'],
      [
        "MaxUpdateOutOfRange",
        'spec.strategy.rollingSync.steps[5].maxUpdate "150%" is over 100%: step 6 updates all its Applications at once',
      ],
    ],
  },
  {
    name: "ignore rules that ignore nothing",
    spec: {
      ignoreApplicationDifferences: [
        {
          jsonPointers: ["/spec/source/targetRevision", "spec/project"],
          jqPathExpressions: [
            ".spec.syncPolicy",
            ".spec.sources | map(.path)",
            '.spec.sources[] | select(.repoURL == "x") | .path',
            ".spec.[",
          ],
        },
      ],
    },
    want: [
      [
        "IgnoreRuleIgnoresNothing",
        'spec.ignoreApplicationDifferences[0].jqPathExpressions[1] ".spec.sources | map(.path)" is not a jq path expression this controller evaluates (paths, [], pipes and select with == or !=): it ignores nothing',
      ],
      [
        "IgnoreRuleIgnoresNothing",
        'spec.ignoreApplicationDifferences[0].jsonPointers[1] "spec/project" is not a JSON pointer (it must start with /): it ignores nothing',
      ],
    ],
  },
  {
    name: "Applications with an empty repository, the first three named",
    apps: [
      rendered("a", { spec: { project: "" } }),
      rendered("b", { spec: { source: { repoURL: "", path: "x" } } }),
      rendered("c", { spec: { source: undefined, sources: [{ repoURL: "https://x" }, { path: "y" }] } }),
      rendered("d", { spec: { source: "not an object" } }),
      rendered("e", { spec: { source: { path: "x" } } }),
    ],
    want: [["EmptyRepoURL", "4 Application(s) have a source with an empty repoURL (b, c, d and 1 more): Argo CD cannot sync them"]],
  },
];

describe("specWarnings", () => {
  it.each(rows)("$name", (row) => {
    const subject = appSet("guestbook", { spec: row.spec ?? {}, metadata: row.annotations ? { annotations: row.annotations } : {} });
    const got = specWarnings(subject, { ...(row.apps ? { apps: row.apps } : {}), progressiveSyncs: row.progressiveSyncs ?? false });
    expect(got.map((w) => [w.reason, w.message])).toEqual(row.want);
  });
});

describe("specWarningCondition", () => {
  it("is absent without warnings, so the condition is removed", () => {
    expect(specWarningCondition([])).toBeUndefined();
  });

  it("takes the first warning's reason and joins every message", () => {
    const c = specWarningCondition([
      { reason: "NoGenerators", message: "one" },
      { reason: "EmptyRepoURL", message: "two" },
    ]);
    expect(c).toEqual({ type: "SpecWarning", status: "True", reason: "NoGenerators", message: "one; two" });
  });
});
