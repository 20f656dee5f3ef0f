// Corpus: fasttemplate mode (goTemplate: false) with flat string params.
import type { CorpusCase } from "../harness.js";

const FLAT = {
  name: "in-cluster",
  "path.basename": "guestbook",
  "metadata.labels.env": "prod",
  "values.replicas": "3",
  count: 3,
  empty: "",
  tricky: "{{name}}",
};
const c = (name: string, template: string): CorpusCase => ({ name, template, params: FLAT, goTemplate: false });

export const FAST_CASES: CorpusCase[] = [
  c("fasttemplate substitutes a key", "{{name}}-app"),
  c("fasttemplate trims tag whitespace", "{{ name }}/{{  path.basename  }}"),
  c("fasttemplate dotted keys", "{{metadata.labels.env}}-{{values.replicas}}"),
  c("fasttemplate unknown key stays verbatim", "{{ nope }}-{{name}}"),
  c("fasttemplate non-string value stays verbatim", "{{count}}"),
  c("fasttemplate empty tag stays", "{{}}{{ }}"),
  c("fasttemplate empty string value", "[{{empty}}]"),
  c("fasttemplate no recursive expansion", "{{tricky}}"),
  c("fasttemplate repeated tag", "{{name}}{{name}}"),
  c("fasttemplate not templated across lines", "{{\nname}}"),
  c("fasttemplate reversed braces untouched", "}} {{"),
  c("fasttemplate unclosed tag after a closed one", "{{name}} {{nope"),
  c("fasttemplate plain text", "plain"),
  c("fasttemplate go syntax is not evaluated", "{{ .name | upper }}"),
  c("fasttemplate multiline with one templated line", "a\n{{name}}\nb {{ x"),
];
