/**
 * The malformed-input corpus: ApplicationSets made from one valid base by seeded random mutations
 * (one to three each), as a careless or hostile user writes them: empty or unknown generators,
 * loops that never end, templates that do not parse, names Kubernetes refuses, projects and
 * clusters that do not exist, strategies and ignore rules that mean nothing, sizes over every
 * budget, and values of the wrong type anywhere in the spec. Some the apiserver refuses (the CRD
 * schema); every one it accepts must get a condition.
 */
import type { KubeObject } from "../../../src/kube/index.js";
import type { Random } from "./random.js";

type Spec = Record<string, unknown>;
type Mutation = { readonly name: string; readonly apply: (spec: Spec, rnd: Random, id: string) => void };

const LOCAL = "https://kubernetes.default.svc";

function template(spec: Spec): { metadata: Record<string, unknown>; spec: Record<string, unknown> } {
  return spec["template"] as never;
}

const setName = (value: string) => (spec: Spec) => {
  template(spec).metadata["name"] = value;
};
const goLoop = (body: string) => (spec: Spec, _rnd: Random, id: string) => {
  spec["goTemplate"] = true;
  template(spec).metadata["name"] = `${id}-{{ .name }}-${body}`;
};

/** Every mutation, by name (the name is what a failure report shows). */
export const MUTATIONS: readonly Mutation[] = [
  { name: "no generators", apply: (s) => (s["generators"] = []) },
  { name: "an empty generator entry", apply: (s) => (s["generators"] = [{}]) },
  { name: "a list without elements", apply: (s) => (s["generators"] = [{ list: {} }]) },
  { name: "list elements that are not objects", apply: (s) => (s["generators"] = [{ list: { elements: [1, "x", null, [2]] } }]) },
  {
    name: "more parameter sets than the budget",
    apply: (s) => (s["generators"] = [{ list: { elements: Array.from({ length: 12_000 }, (_, i) => ({ name: `e${String(i)}` })) } }]),
  },
  {
    name: "a matrix whose product is over the budget",
    apply: (s) => {
      const list = (n: number, k: string) => ({ list: { elements: Array.from({ length: n }, (_, i) => ({ [k]: String(i) })) } });
      s["generators"] = [{ matrix: { generators: [list(200, "a"), list(200, "b")] } }];
    },
  },
  { name: "until 1e8 in the name", apply: goLoop("{{ range until 100000000 }}x{{ end }}") },
  { name: "untilStep to 1e9 in the name", apply: goLoop("{{ range untilStep 0 1000000000 1 }}{{ end }}") },
  { name: "seq 1e8 in the name", apply: goLoop("{{ range seq 100000000 }}{{ end }}") },
  { name: "repeat 1e9 in the name", apply: goLoop('{{ repeat 1000000000 "x" }}') },
  { name: "until 1e7 inside a range of 100", apply: goLoop("{{ range until 100 }}{{ range until 10000000 }}{{ end }}{{ end }}") },
  { name: "a template that does not parse", apply: setName("{{ .name") },
  { name: "a Go template that does not parse", apply: goLoop("{{ if }}") },
  { name: "an unknown Go function", apply: goLoop("{{ nosuchfunction .name }}") },
  {
    name: "missingkey=error with a missing key",
    apply: (s, _r, id) => {
      s["goTemplate"] = true;
      s["goTemplateOptions"] = ["missingkey=error"];
      template(s).metadata["name"] = `${id}-{{ .nosuchkey }}`;
    },
  },
  {
    name: "an invalid goTemplateOptions entry",
    apply: (s) => ((s["goTemplate"] = true), (s["goTemplateOptions"] = ["missingkey=explode"])),
  },
  { name: "a name with invalid characters", apply: (s, _r, id) => setName(`${id}-Bad_Name!{{name}}`)(s) },
  { name: "a name over 253 characters", apply: (s, _r, id) => setName(`${id}-${"n".repeat(300)}-{{name}}`)(s) },
  { name: "an empty name", apply: setName("") },
  { name: "duplicate names", apply: (s, _r, id) => setName(`${id}-same`)(s) },
  { name: "a project that does not exist", apply: (s) => (template(s).spec["project"] = "no-such-project") },
  { name: "an empty project", apply: (s) => (template(s).spec["project"] = "") },
  { name: "a destination with name and server", apply: (s) => (template(s).spec["destination"] = { name: "in-cluster", server: LOCAL }) },
  { name: "an unknown destination server", apply: (s) => (template(s).spec["destination"] = { server: "https://nowhere.example.com" }) },
  { name: "an unknown destination name", apply: (s) => (template(s).spec["destination"] = { name: "no-such-cluster" }) },
  { name: "a destination with neither", apply: (s) => (template(s).spec["destination"] = { namespace: "x" }) },
  { name: "an empty repoURL", apply: (s) => (template(s).spec["source"] = { repoURL: "", path: "." }) },
  { name: "an unknown strategy type", apply: (s) => (s["strategy"] = { type: "Unknown" }) },
  { name: "an empty strategy type", apply: (s) => (s["strategy"] = { type: "" }) },
  { name: "RollingSync without its block", apply: (s) => (s["strategy"] = { type: "RollingSync" }) },
  { name: "RollingSync without steps", apply: (s) => (s["strategy"] = { type: "RollingSync", rollingSync: { steps: [] } }) },
  {
    name: "maxUpdate values out of range",
    apply: (s, rnd) =>
      (s["strategy"] = {
        type: "RollingSync",
        rollingSync: {
          steps: [{ matchExpressions: [{ key: "env", operator: "In", values: ["a"] }], maxUpdate: rnd.pick(["150%", "-10%", "abc", -3]) }],
        },
      }),
  },
  {
    name: "an invalid step operator",
    apply: (s) =>
      (s["strategy"] = {
        type: "RollingSync",
        rollingSync: { steps: [{ matchExpressions: [{ key: "env", operator: "Foo", values: ["a"] }] }] },
      }),
  },
  { name: "an ignore rule that does not parse", apply: (s) => (s["ignoreApplicationDifferences"] = [{ jqPathExpressions: [".spec.["] }]) },
  {
    name: "an ignore rule this controller does not evaluate",
    apply: (s) => (s["ignoreApplicationDifferences"] = [{ jqPathExpressions: [".spec | keys"] }]),
  },
  { name: "a templatePatch that is not YAML", apply: (s) => ((s["goTemplate"] = true), (s["templatePatch"] = "spec: [unclosed")) },
  {
    name: "a templatePatch with a loop",
    apply: (s) => ((s["goTemplate"] = true), (s["templatePatch"] = "{{ range until 100000000 }}{{ end }}")),
  },
  {
    name: "a matrix with three children",
    apply: (s) =>
      (s["generators"] = [
        {
          matrix: {
            generators: [{ list: { elements: [{ a: "1" }] } }, { list: { elements: [{ b: "1" }] } }, { list: { elements: [{ c: "1" }] } }],
          },
        },
      ]),
  },
  {
    name: "a matrix nested seven deep",
    apply: (s) => {
      let g: unknown = { list: { elements: [{ name: "deep" }] } };
      for (let i = 0; i < 7; i++) g = { matrix: { generators: [g, { list: { elements: [{ [`k${String(i)}`]: "v" }] } }] } };
      s["generators"] = [g];
    },
  },
  {
    name: "a merge without mergeKeys",
    apply: (s) => (s["generators"] = [{ merge: { generators: [{ list: { elements: [{ name: "m" }] } }] } }]),
  },
  {
    name: "a Git generator on a repository that does not exist",
    apply: (s) =>
      (s["generators"] = [{ git: { repoURL: "file:///nonexistent/repository.git", revision: "HEAD", directories: [{ path: "*" }] } }]),
  },
  {
    name: "a cluster selector with an invalid operator",
    apply: (s) => (s["generators"] = [{ clusters: { selector: { matchExpressions: [{ key: "a", operator: "Near", values: ["b"] }] } } }]),
  },
  {
    name: "a clusterDecisionResource without its ConfigMap",
    apply: (s) => (s["generators"] = [{ clusterDecisionResource: { configMapRef: "no-such-configmap" } }]),
  },
  { name: "a plugin without its ConfigMap", apply: (s) => (s["generators"] = [{ plugin: { configMapRef: { name: "no-such-plugin" } } }]) },
  { name: "a 300 KiB label value", apply: (s) => (template(s).metadata["labels"] = { big: "v".repeat(300 * 1024) }) },
  { name: "an invalid label value", apply: (s) => (template(s).metadata["labels"] = { env: "not a valid value" }) },
  { name: "an invalid finalizer", apply: (s) => (template(s).metadata["finalizers"] = ["not/a/valid/finalizer"]) },
  { name: "an unknown applicationsSync policy", apply: (s) => (s["syncPolicy"] = { applicationsSync: "bogus" }) },
  { name: "a value of the wrong type somewhere", apply: wrongType },
];

const VALUES: readonly unknown[] = [null, 0, -1, 1e12, true, "", "x", [], [1], {}, { a: 1 }];

/** Replaces a random field of the spec (at any depth) with a value of a random type. */
function wrongType(spec: Spec, rnd: Random): void {
  let cur: Record<string, unknown> | unknown[] = spec;
  for (let depth = 0; depth < 6; depth++) {
    const keys: Array<string | number> = Array.isArray(cur) ? cur.map((_, i) => i) : Object.keys(cur);
    if (keys.length === 0) break;
    const k = rnd.pick(keys);
    const next: unknown = (cur as Record<string | number, unknown>)[k];
    if (next !== null && typeof next === "object" && rnd.next() < 0.7) {
      cur = next as Record<string, unknown> | unknown[];
      continue;
    }
    (cur as Record<string | number, unknown>)[k] = rnd.pick(VALUES);
    return;
  }
}

/** The valid ApplicationSet every case starts from. */
export function baseAppSet(id: string, ns: string): KubeObject {
  return {
    apiVersion: "argoproj.io/v1alpha1",
    kind: "ApplicationSet",
    metadata: { name: id, namespace: ns },
    spec: {
      generators: [
        {
          list: {
            elements: [
              { name: "a", env: "a" },
              { name: "b", env: "b" },
            ],
          },
        },
      ],
      template: {
        metadata: { name: `${id}-{{name}}`, labels: { env: "{{env}}" } },
        spec: {
          project: "default",
          source: { repoURL: "https://example.com/apps.git", targetRevision: "HEAD", path: "{{name}}" },
          destination: { server: LOCAL, namespace: "{{name}}" },
        },
      },
    },
  };
}

/** One case of the corpus: the ApplicationSet and the mutations that made it. */
export interface MalformedCase {
  readonly id: string;
  readonly mutations: readonly string[];
  readonly object: KubeObject;
}

/** `count` cases drawn from `rnd`, named `bad-0`, `bad-1`, … */
export function malformedCorpus(count: number, ns: string, rnd: Random): MalformedCase[] {
  return Array.from({ length: count }, (_, i) => {
    const id = `bad-${String(i)}`;
    const object = baseAppSet(id, ns);
    const spec = object["spec"] as Spec;
    const n = rnd.int(1, 3);
    const names: string[] = [];
    for (let k = 0; k < n; k++) {
      const m = rnd.pick(MUTATIONS);
      try {
        m.apply(spec, rnd, id);
        names.push(m.name);
      } catch {
        // An earlier mutation removed what this one edits (the template replaced by a number, …).
      }
    }
    return { id, mutations: names, object };
  });
}
