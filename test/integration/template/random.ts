// fast-check arbitraries for random templates over generator-shaped params, and a runner that
// renders a batch through the Go oracle once and compares every case with our engine.
import fc from "fast-check";
import { runOracle } from "../../oracle/oracle.js";
import { difference, renderOurs, testEngine, type CorpusCase } from "./harness.js";

const word = fc.constantFrom("a", "b", "prod", "web", "Hello World", "x-y_z", "", " sp ", "ünï", "<&>", "1.2.3", "v2", "42");
const scalar = fc.oneof(
  word,
  fc.integer({ min: -1000, max: 1000 }),
  fc.double({ min: -1e7, max: 1e7, noNaN: true, noDefaultInfinity: true }),
  fc.boolean(),
  fc.constant(null),
);

/** Params shaped like the generators' goTemplate output. */
export const paramsArb = fc.record({
  name: word,
  server: fc.constantFrom("https://kubernetes.default.svc", "https://a.example.com"),
  n: fc.oneof(fc.integer({ min: -5, max: 5 }), fc.double({ min: -100, max: 1e9, noNaN: true, noDefaultInfinity: true })),
  flag: fc.boolean(),
  nul: fc.constant(null),
  list: fc.array(word, { maxLength: 4 }),
  mixed: fc.array(scalar, { maxLength: 4 }),
  metadata: fc.record({ labels: fc.dictionary(fc.constantFrom("env", "tier", "app"), word, { maxKeys: 3 }) }),
  path: fc.record({ path: fc.constantFrom("apps/a", "b", "x/y/z"), basename: word, segments: fc.array(word, { maxLength: 3 }) }),
  values: fc.dictionary(fc.constantFrom("k", "region", "replicas"), scalar, { maxKeys: 3 }),
});

const fields = fc.constantFrom(
  ".name",
  ".server",
  ".n",
  ".flag",
  ".nul",
  ".list",
  ".mixed",
  ".metadata.labels",
  ".metadata.labels.env",
  ".path.basename",
  ".path.segments",
  ".values",
  ".values.k",
  ".missing",
  ".missing.x",
  "$",
  ".",
);
const literal = fc.oneof(
  word.map((w) => JSON.stringify(w)),
  fc.integer({ min: -20, max: 20 }).map(String),
  fc.constantFrom("1.5", "0", "true", "false", "2.0", "1e3"),
);
const unary = [
  "upper",
  "lower",
  "trim",
  "quote",
  "len",
  "toJson",
  "b64enc",
  "sha1sum",
  "title",
  "toString",
  "empty",
  "not",
  "kindOf",
  "typeOf",
  "normalize",
  "first",
  "last",
  "toYaml",
  "squote",
  "print",
  "sortAlpha",
  "toRawJson",
  "int64",
  "float64",
  "add1",
];
const binary = [
  "eq",
  "ne",
  "lt",
  "le",
  "default",
  "index",
  "contains",
  "hasPrefix",
  "trunc",
  "join",
  "splitList",
  "printf",
  "and",
  "or",
  "add",
  "sub",
  "mul",
  "max",
  "list",
  "dict",
  "coalesce",
  "cat",
  "repeat",
  "replace",
  "has",
  "without",
  "append",
];

const operand: fc.Arbitrary<string> = fc.oneof({ weight: 3, arbitrary: fields }, { weight: 2, arbitrary: literal });

/** A pipeline expression. */
export const exprArb: fc.Arbitrary<string> = fc.letrec<{ expr: string }>((tie) => ({
  expr: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    operand,
    fc.tuple(fc.constantFrom(...unary), operand).map(([f, a]) => `${f} ${a}`),
    fc.tuple(fc.constantFrom(...binary), operand, operand).map(([f, a, b]) => `${f} ${a} ${b}`),
    fc.tuple(tie("expr"), fc.constantFrom(...unary)).map(([e, f]) => `${e} | ${f}`),
    fc.tuple(fc.constantFrom(...binary), operand, tie("expr")).map(([f, a, e]) => `${f} ${a} (${e})`),
  ),
})).expr;

const text = fc.constantFrom("", "x", " ", "\n", "-", "name: ", "  \n  ");
const trimL = fc.constantFrom("{{", "{{- ");
const trimR = fc.constantFrom("}}", " -}}");

/** A whole template. */
export const templateArb: fc.Arbitrary<string> = fc.letrec<{ t: string }>((tie) => ({
  t: fc.oneof(
    { depthSize: "small" },
    fc.tuple(text, trimL, exprArb, trimR, text).map(([a, l, e, r, b]) => `${a}${l} ${e} ${r}${b}`),
    fc.tuple(exprArb, tie("t"), tie("t")).map(([e, x, y]) => `{{ if ${e} }}${x}{{ else }}${y}{{ end }}`),
    fc.tuple(fields, tie("t")).map(([f, x]) => `{{ range $i, $v := ${f} }}{{ $i }}={{ $v }};${x}{{ else }}none{{ end }}`),
    fc.tuple(fields, tie("t")).map(([f, x]) => `{{ with ${f} }}[{{ . }}]${x}{{ end }}`),
    fc.tuple(exprArb, tie("t")).map(([e, x]) => `{{ $x := ${e} }}${x}{{ $x }}`),
    fc.tuple(tie("t"), tie("t")).map(([x, y]) => x + y),
  ),
})).t;

/** Generates `count` random cases and returns the descriptions of every mismatch. */
export function randomMismatches(count: number, seed: number): string[] {
  const samples = fc.sample(fc.tuple(templateArb, paramsArb, fc.constantFrom<string[]>([], ["missingkey=error"], ["missingkey=zero"])), {
    numRuns: count,
    seed,
  });
  const cases: CorpusCase[] = samples.map(([template, params, options]) => ({ name: template, template, params, options }));
  const go = runOracle(cases.map((c) => ({ template: c.template, params: c.params!, options: c.options ?? [] })));
  const engine = testEngine();
  const out: string[] = [];
  cases.forEach((c, i) => {
    const diff = difference(c, renderOurs(engine, c, c.params!), go[i]!);
    if (diff !== null)
      out.push(`template ${JSON.stringify(c.template)} params ${JSON.stringify(c.params)} options ${JSON.stringify(c.options)}\n  ${diff}`);
  });
  return out;
}
