// Benchmark (run on demand): renders per second of a typical goTemplate Application template
// (~20 templated fields, a few functions) over 10,000 parameter sets, ours against the Go oracle's
// in-process loop on the same cases.
//
//   bash -c 'source scripts/node-env.sh; npx tsx bench/template.ts'
import { TemplateEngine } from "../src/template/engine.js";
import { runOracleBench } from "../test/oracle/oracle.js";

const FIELDS = [
  "{{ .nameNormalized }}-{{ .path.basename }}",
  '{{ .metadata.labels.env | default "dev" }}',
  "argocd",
  '{{ .project | default "default" }}',
  "https://github.com/example/{{ .repo }}.git",
  '{{ .targetRevision | default "HEAD" }}',
  "{{ .path.path }}",
  "{{ .server }}",
  "{{ .path.basename | lower }}",
  "values-{{ .metadata.labels.env }}.yaml",
  "{{ .nameNormalized | upper }}",
  '{{ printf "%s/%s" .path.basename .nameNormalized }}',
  '{{ if eq .metadata.labels.env "prod" }}true{{ else }}false{{ end }}',
  '{{ .values.replicas | default "1" }}',
  "{{ trunc 20 .name }}",
  "{{ .name | normalize }}",
  'team-{{ index .metadata.labels "team" }}',
  '{{ join "," .path.segments }}',
  "{{ .metadata.annotations.owner | quote }}",
  "{{ toJson .values }}",
];

function params(i: number): Record<string, unknown> {
  return {
    name: `Cluster-${i}`,
    nameNormalized: `cluster-${i}`,
    server: `https://10.0.${i % 256}.${(i >> 8) % 256}:6443`,
    project: i % 3 === 0 ? "" : "platform",
    repo: `repo-${i % 50}`,
    metadata: { labels: { env: i % 2 ? "prod" : "dev", team: `t${i % 7}` }, annotations: { owner: `owner-${i % 11}` } },
    path: { path: `apps/app-${i}`, basename: `app-${i}`, segments: ["apps", `app-${i}`] },
    values: { replicas: String(1 + (i % 5)), region: "eu" },
  };
}

const N = 10_000;
const sets = Array.from({ length: N }, (_, i) => params(i));
const engine = new TemplateEngine({ now: () => 0 });
for (const p of sets.slice(0, 500)) for (const f of FIELDS) engine.replace(f, p, true); // warm up
const start = performance.now();
for (const p of sets) for (const f of FIELDS) engine.replace(f, p, true);
const secs = (performance.now() - start) / 1000;
const ours = (N * FIELDS.length) / secs;
const go = runOracleBench({ fields: FIELDS, params: sets, options: [], iterations: 1 });
console.log(`renders: ${N * FIELDS.length} (${N} parameter sets x ${FIELDS.length} fields)`);
console.log(`ours (TypeScript, compile cache): ${Math.round(ours)} renders/s`);
console.log(
  `go as Argo CD runs it (parse per render): ${Math.round(go.argoRendersPerSec)} renders/s  -> ratio ${(ours / go.argoRendersPerSec).toFixed(2)}x`,
);
console.log(
  `go with templates parsed once: ${Math.round(go.cachedRendersPerSec)} renders/s  -> ratio ${(ours / go.cachedRendersPerSec).toFixed(2)}x`,
);
