/**
 * The failure budget of a step (docs/adr/0009-rollout-policy-crd.md, after OCM's `maxFailures`):
 * how many of its Applications may fail before the rollout halts. It reads the value with the same
 * parser as `maxUpdate` (`../budget.ts`) but rounds the other way to be safe: absent means 0, a
 * count is taken as-is (negative: 0), and `"P%"` is floor(P × total / 100), clamped to [0, total],
 * never raised to 1, so a budget never tolerates more failures than the percentage says (10% of 5
 * Applications tolerates none). An invalid string tolerates none.
 */
import type { IntOrString } from "../../api/index.js";
import { parseMaxUpdate } from "../budget.js";

/** How many failed Applications a step of `total` Applications tolerates. */
export function failureLimit(value: IntOrString | undefined, total: number): number {
  const parsed = parseMaxUpdate(value);
  switch (parsed.kind) {
    case "unlimited":
    case "invalid":
      return 0;
    case "count":
      return Math.max(0, parsed.count);
    case "percent":
      return Math.min(total, Math.max(0, Math.floor((parsed.percent * total) / 100)));
  }
}
