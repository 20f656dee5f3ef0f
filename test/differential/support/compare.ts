/**
 * Comparing the two sides' observations, and holding the differences against the documented
 * deviations (`test/differential/deviations.yaml`). Pure.
 */
import { z } from "zod";
import type { Json } from "./observe.js";

/** One difference: where, and what each side had (undefined: absent). */
export interface Difference {
  readonly path: string;
  readonly argo: Json | undefined;
  readonly ours: Json | undefined;
}

const isObj = (v: unknown): v is Record<string, Json> => v !== null && typeof v === "object" && !Array.isArray(v);

/** Every leaf where `argo` and `ours` differ, with a dotted path (`[i]` for list items). */
export function differences(argo: Json | undefined, ours: Json | undefined, path = ""): Difference[] {
  if (isObj(argo) && isObj(ours)) {
    const keys = [...new Set([...Object.keys(argo), ...Object.keys(ours)])].sort();
    return keys.flatMap((k) => differences(argo[k], ours[k], path === "" ? k : `${path}.${k}`));
  }
  if (Array.isArray(argo) && Array.isArray(ours) && argo.length === ours.length) {
    return argo.flatMap((x, i) => differences(x, ours[i], `${path}[${String(i)}]`));
  }
  return JSON.stringify(argo) === JSON.stringify(ours) ? [] : [{ path, argo, ours }];
}

/** One documented deviation: the cases and paths it covers, why, and where it is explained. */
export const Deviation = z.strictObject({
  id: z.string(),
  reason: z.string(),
  /** A doc or ADR of the project (a path under docs/). */
  doc: z.string().regex(/^docs\//),
  cases: z.array(z.string()).min(1),
  /** Path patterns: `*` matches any run of characters. */
  paths: z.array(z.string()).min(1),
  /** A race on Argo CD's side that it sometimes wins: a case it covers may also come out identical. */
  sometimes: z.boolean().default(false),
});
export type Deviation = z.input<typeof Deviation>;
export const Deviations = z.array(Deviation);

function pattern(glob: string): RegExp {
  return new RegExp(
    `^${glob
      .split("*")
      .map((p) => p.replace(/[.+?^${}()|[\]\\]/g, "\\$&"))
      .join(".*")}$`,
  );
}

/** How a case came out. */
export type Verdict =
  | { readonly kind: "identical" }
  | { readonly kind: "deviation"; readonly ids: readonly string[] }
  | { readonly kind: "different"; readonly unexplained: readonly Difference[] };

/**
 * The verdict of case `name` with `diffs`: identical when none, a documented deviation when each is
 * covered by a deviation that lists the case, else different (with the uncovered ones). A deviation
 * that lists the case but covers none of its differences is itself reported, so the file stays true.
 */
export function verdict(name: string, diffs: readonly Difference[], deviations: readonly Deviation[]): Verdict {
  const mine = deviations.filter((d) => d.cases.includes(name));
  const used = new Set<string>();
  const unexplained = diffs.filter((d) => {
    const by = mine.find((dev) => dev.paths.some((p) => pattern(p).test(d.path)));
    if (by !== undefined) used.add(by.id);
    return by === undefined;
  });
  const stale = mine.filter((d) => !used.has(d.id) && !d.sometimes);
  if (unexplained.length > 0 || stale.length > 0) {
    return {
      kind: "different",
      unexplained: [
        ...unexplained,
        ...stale.map((d) => ({ path: `(deviation ${d.id} lists this case but covers no difference)`, argo: undefined, ours: undefined })),
      ],
    };
  }
  return used.size === 0 ? { kind: "identical" } : { kind: "deviation", ids: [...used].sort() };
}
