/**
 * Trimming a run of characters off the end of a text in linear time. `s.replace(/\/+$/, "")` looks
 * like the same thing, but a backtracking RegExp retries the run from every position, so a text
 * of many slashes not at its end (a repository URL, a `.gitmodules` path, a template argument, all
 * written by tenants) takes time quadratic in its length. Pure.
 */

/** `s` without the run of characters from `chars` that ends it. */
export function trimEndOf(s: string, chars: string): string {
  let end = s.length;
  while (end > 0 && chars.includes(s[end - 1]!)) end--;
  return end === s.length ? s : s.slice(0, end);
}

/** `s` without its trailing slashes. */
export function trimTrailingSlashes(s: string): string {
  return trimEndOf(s, "/");
}
