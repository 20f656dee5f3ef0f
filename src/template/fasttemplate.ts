/**
 * fasttemplate mode (`goTemplate: false`), as Argo CD runs it: a string is processed only when a
 * line holds `{{` followed by `}}`; each `{{tag}}` is looked up by its whitespace-trimmed text and
 * replaced only by a string value. Unknown keys, non-string values and empty tags stay verbatim.
 */

/** A parsed fasttemplate: alternating texts and raw tags (texts.length === tags.length + 1). */
export interface FastTemplate {
  readonly texts: readonly string[];
  readonly tags: readonly string[];
  /** False when the string is not templated at all (returned as is). */
  readonly templated: boolean;
}

const TEMPLATED = /{{.*}}/;

/** Thrown for a `{{` without a closing `}}` in a templated string. */
export class FastTemplateError extends Error {
  override name = "FastTemplateError";
}

/** Parses a string (once; the result can be executed many times). */
export function parseFast(template: string): FastTemplate {
  // Go's regexp `.` does not match `\n`, so `{{` and `}}` must share a line.
  if (!TEMPLATED.test(template)) return { texts: [template], tags: [], templated: false };
  const texts: string[] = [];
  const tags: string[] = [];
  let s = template;
  for (;;) {
    const n = s.indexOf("{{");
    if (n < 0) {
      texts.push(s);
      break;
    }
    texts.push(s.slice(0, n));
    s = s.slice(n + 2);
    const e = s.indexOf("}}");
    if (e < 0) {
      throw new FastTemplateError(
        `invalid template: Cannot find end tag="}}" in the template=${JSON.stringify(template)} starting from ${JSON.stringify(s)}`,
      );
    }
    tags.push(s.slice(0, e));
    s = s.slice(e + 2);
  }
  return { texts, tags, templated: true };
}

/** Executes a parsed fasttemplate against flat params. */
export function executeFast(t: FastTemplate, params: Readonly<Record<string, unknown>>): string {
  if (!t.templated) return t.texts[0]!;
  let out = t.texts[0]!;
  for (let i = 0; i < t.tags.length; i++) {
    const tag = t.tags[i]!;
    const key = tag.trim();
    const v = key.length > 0 && Object.hasOwn(params, key) ? params[key] : undefined;
    out += typeof v === "string" ? v : `{{${tag}}}`;
    out += t.texts[i + 1]!;
  }
  return out;
}
