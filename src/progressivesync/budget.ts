/**
 * `maxUpdate` arithmetic (docs/progressive-syncs.md#promotion): how many Applications of one step
 * may be Pending or Progressing at once. Integers are taken as-is (0 or negative: none); `"P%"` is
 * floor(P × total / 100), raised to 1 when it rounds below 1 unless the value is exactly `"0%"`;
 * any other string is invalid and, following the seed (not Argo CD's fallback to 1), means no
 * limit.
 */
import type { IntOrString } from "../api/index.js";

/** A parsed `maxUpdate`. */
export type MaxUpdate =
  | { readonly kind: "unlimited" }
  | { readonly kind: "count"; readonly count: number }
  | { readonly kind: "percent"; readonly percent: number; readonly raw: string }
  | { readonly kind: "invalid"; readonly raw: string };

/** A percentage as Go's `strconv.Atoi` reads it after the `%` is trimmed: optional sign, digits. */
const PERCENT = /^([+-]?\d+)%$/;

/** Parses a step's `maxUpdate`; absent means unlimited. Never throws. */
export function parseMaxUpdate(value: IntOrString | undefined): MaxUpdate {
  if (value === undefined) return { kind: "unlimited" };
  if (typeof value === "number") return { kind: "count", count: value };
  const m = PERCENT.exec(value);
  if (m === null) return { kind: "invalid", raw: value };
  return { kind: "percent", percent: Number(m[1]), raw: value };
}

/**
 * How many Applications of a step with `total` status entries may be updating at once.
 * `Infinity` for no limit (absent or invalid), 0 for none.
 */
export function maxUpdateLimit(max: MaxUpdate, total: number): number {
  switch (max.kind) {
    case "unlimited":
    case "invalid":
      return Infinity;
    case "count":
      return Math.max(0, max.count);
    case "percent": {
      const scaled = Math.floor((max.percent * total) / 100);
      return scaled < 1 && max.raw !== "0%" ? 1 : Math.max(0, scaled);
    }
  }
}

/** Splits names (already in promotion order) into the batches a limit allows: [] when the limit is 0. */
export function batches(names: readonly string[], limit: number): string[][] {
  if (names.length === 0) return [];
  if (limit <= 0) return [];
  if (!Number.isFinite(limit)) return [[...names]];
  const out: string[][] = [];
  for (let i = 0; i < names.length; i += limit) out.push(names.slice(i, i + limit));
  return out;
}
