/**
 * Texts of bounded length for what the controller writes about itself: condition and event
 * messages and log fields. A text over its limit keeps its beginning and ends with a marker saying
 * how much was cut, so a 1 MiB template error still leaves a condition the apiserver accepts. Pure.
 */

/** The longest condition message written (ApplicationSet conditions, `applicationStatus` entries). */
export const MAX_CONDITION_MESSAGE = 8_192;
/** The longest Kubernetes Event message written (events.k8s.io's limit for a note). */
export const MAX_EVENT_MESSAGE = 1_024;
/** The longest string field of a log line. */
export const MAX_LOG_FIELD = 8_192;

/** The marker that ends a cut text. */
export function cutMarker(cut: number): string {
  return `… (${String(cut)} more characters)`;
}

/** `text` when it is at most `max` characters long, else its beginning and {@link cutMarker}, `max` characters in all. */
export function boundText(text: string, max: number): string {
  if (text.length <= max) return text;
  let keep = Math.max(0, max - cutMarker(text.length).length);
  // Never split a surrogate pair.
  if (keep > 0 && /[\uD800-\uDBFF]/.test(text[keep - 1] ?? "")) keep--;
  return text.slice(0, keep) + cutMarker(text.length - keep);
}
