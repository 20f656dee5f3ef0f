/**
 * Sprig's semver and semverCompare on Masterminds/semver v3 rules: loose version parsing ("v1",
 * "1.2"), ordering with prereleases, and constraints (=, !=, >, <, >=, <=, ~, ^, x-ranges,
 * hyphen ranges, "," / " " for and, "||" for or).
 */
import { fn, GoFuncError, type FuncMap, type GoFunc } from "../go/types.js";
import { GoInt, type GoSpecial, type GoValue } from "../go/value.js";

const VERSION = /^v?([0-9]+)(\.[0-9]+)?(\.[0-9]+)?(-([0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*))?(\+([0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*))?$/;

/** A parsed semantic version (*semver.Version). */
export class SemVersion implements GoSpecial {
  readonly goType = "*semver.Version";
  readonly goKind = "ptr";
  readonly major: bigint;
  readonly minor: bigint;
  readonly patch: bigint;
  readonly pre: string;
  readonly metadata: string;
  readonly original: string;

  constructor(v: { major: bigint; minor: bigint; patch: bigint; pre?: string; metadata?: string; original?: string }) {
    this.major = v.major;
    this.minor = v.minor;
    this.patch = v.patch;
    this.pre = v.pre ?? "";
    this.metadata = v.metadata ?? "";
    this.original = v.original ?? "";
  }

  goString(): string {
    return `${this.major}.${this.minor}.${this.patch}${this.pre ? "-" + this.pre : ""}${this.metadata ? "+" + this.metadata : ""}`;
  }

  toJSONValue(): string {
    return this.goString();
  }

  method(name: string): GoFunc | undefined {
    const u = (v: bigint): GoValue => new GoInt(v, "uint64");
    const m: Record<string, GoFunc> = {
      Major: fn([], () => u(this.major)),
      Minor: fn([], () => u(this.minor)),
      Patch: fn([], () => u(this.patch)),
      Prerelease: fn([], () => this.pre),
      Metadata: fn([], () => this.metadata),
      Original: fn([], () => this.original),
      String: fn([], () => this.goString()),
    };
    return m[name];
  }
}

/** semver.NewVersion. */
export function parseVersion(v: string): SemVersion {
  const m = VERSION.exec(v);
  if (!m) throw new GoFuncError("Invalid Semantic Version");
  const pre = m[5] ?? "";
  for (const id of pre ? pre.split(".") : []) {
    if (/^\d+$/.test(id) && id.length > 1 && id.startsWith("0")) throw new GoFuncError("Version segment starts with 0");
  }
  const part = (s: string | undefined): bigint => (s ? BigInt(s.replace(".", "")) : 0n);
  return new SemVersion({ major: BigInt(m[1]!), minor: part(m[2]), patch: part(m[3]), pre, metadata: m[8] ?? "", original: v });
}

function comparePre(a: string, b: string): number {
  if (a === b) return 0;
  if (a === "") return 1;
  if (b === "") return -1;
  const pa = a.split(".");
  const pb = b.split(".");
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const x = pa[i];
    const y = pb[i];
    if (x === undefined) return -1;
    if (y === undefined) return 1;
    const d = compareIdentifiers(x, y);
    if (d !== 0) return d;
  }
  return 0;
}

/** Two pre-release identifiers: numeric ones by value and before alphanumeric ones, those in ASCII order. */
function compareIdentifiers(x: string, y: string): number {
  const nx = /^\d+$/.test(x);
  const ny = /^\d+$/.test(y);
  if (nx && ny) {
    const d = BigInt(x) - BigInt(y);
    return d === 0n ? 0 : d < 0n ? -1 : 1;
  }
  if (nx !== ny) return nx ? -1 : 1;
  return x === y ? 0 : x < y ? -1 : 1;
}

/** Version.Compare. */
export function compareVersions(a: SemVersion, b: SemVersion): number {
  for (const k of ["major", "minor", "patch"] as const) if (a[k] !== b[k]) return a[k] < b[k] ? -1 : 1;
  return comparePre(a.pre, b.pre);
}

type Check = (v: SemVersion) => boolean;

const OPS = ["!=", ">=", "=>", "<=", "=<", "~>", ">", "<", "=", "~", "^"];

function wildcard(s: string | undefined): boolean {
  return s === undefined || s === "x" || s === "X" || s === "*";
}

/** One constraint parsed: its base version, which of its parts are wildcards, its pre-release. */
interface Parsed {
  readonly base: SemVersion;
  readonly wild: { readonly M: boolean; readonly N: boolean; readonly P: boolean };
  readonly dirty: boolean;
  readonly pre: string | undefined;
}

/** A pre-release version only satisfies a constraint that names a pre-release. */
const preOK = (p: Parsed, v: SemVersion): boolean => v.pre === "" || p.pre !== undefined;
const cmp = (p: Parsed, v: SemVersion): number => compareVersions(v, p.base);
const below = (lim: SemVersion, v: SemVersion): boolean => compareVersions(v, lim) < 0;

/** The base version with its major (or minor) part raised by one and the parts after it zeroed. */
function nextUp(p: Parsed, level: "major" | "minor"): SemVersion {
  return level === "major"
    ? new SemVersion({ major: p.base.major + 1n, minor: 0n, patch: 0n })
    : new SemVersion({ major: p.base.major, minor: p.base.minor + 1n, patch: 0n });
}

/** The next major version when the minor part is a wildcard, else the next minor. */
const nextUnpinned = (p: Parsed): SemVersion => (p.wild.N ? nextUp(p, "major") : nextUp(p, "minor"));

/** `=` (and no operator): equality, or the range a wildcard spans. */
function equalCheck(p: Parsed): Check {
  if (!p.dirty) return (v) => preOK(p, v) && cmp(p, v) === 0;
  return (v) =>
    preOK(p, v) && cmp(p, v) >= 0 && below(p.wild.M ? new SemVersion({ major: 1n << 62n, minor: 0n, patch: 0n }) : nextUnpinned(p), v);
}

/** `^`: up to the next change of the leftmost non-zero part. */
function caretCheck(p: Parsed): Check {
  return (v) => {
    if (!preOK(p, v) || cmp(p, v) < 0) return false;
    if (p.base.major > 0n || p.wild.N) return below(nextUp(p, "major"), v);
    if (p.base.minor > 0n || p.wild.P) return below(nextUp(p, "minor"), v);
    return below(new SemVersion({ major: 0n, minor: 0n, patch: p.base.patch + 1n }), v);
  };
}

const atLeast =
  (p: Parsed): Check =>
  (v) =>
    preOK(p, v) && cmp(p, v) >= 0;
const atMost =
  (p: Parsed): Check =>
  (v) =>
    preOK(p, v) && (p.dirty ? below(nextUnpinned(p), v) : cmp(p, v) <= 0);
const tilde =
  (p: Parsed): Check =>
  (v) =>
    preOK(p, v) && cmp(p, v) >= 0 && below(p.wild.N && !p.wild.M ? nextUp(p, "major") : nextUp(p, "minor"), v);

/** The check each operator builds. */
const CHECKS: Record<string, (p: Parsed) => Check> = {
  "": equalCheck,
  "=": equalCheck,
  "!=": (p) => (v) => preOK(p, v) && cmp(p, v) !== 0,
  ">": (p) => (v) => preOK(p, v) && (p.dirty ? compareVersions(v, nextUnpinned(p)) >= 0 : cmp(p, v) > 0),
  "<": (p) => (v) => preOK(p, v) && cmp(p, v) < 0,
  ">=": atLeast,
  "=>": atLeast,
  "<=": atMost,
  "=<": atMost,
  "~": tilde,
  "~>": tilde,
  "^": caretCheck,
};

function parseOne(c: string): Check {
  const op = OPS.find((o) => c.startsWith(o)) ?? "";
  const rest = c.slice(op.length).trim();
  const m = /^v?(\d+|[xX*])(?:\.(\d+|[xX*]))?(?:\.(\d+|[xX*]))?(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$/.exec(rest);
  if (!m) throw new GoFuncError(`improper constraint: ${c}`);
  const [, M, N, P, pre] = m;
  const wild = { M: wildcard(M), N: wildcard(N), P: wildcard(P) };
  const base = parseVersion(`${wild.M ? 0 : M}.${wild.N ? 0 : N}.${wild.P ? 0 : P}${pre ?? ""}`);
  return (CHECKS[op] ?? caretCheck)({ base, wild, dirty: wild.M || wild.N || wild.P, pre });
}

/** semver.NewConstraint(...).Check. */
export function constraint(text: string): Check {
  const ors = text.split("||").map((part) => {
    const p = part.trim().replace(/\s*-\s+/g, " - ");
    const hy = /^(\S+) - (\S+)$/.exec(p);
    if (hy) {
      const lo = parseOne(">=" + hy[1]);
      const hi = parseOne("<=" + hy[2]);
      return [lo, hi];
    }
    const items = p
      .replace(/(>=|<=|=>|=<|!=|~>|[><=~^])\s+/g, "$1")
      .split(/[\s,]+/)
      .filter(Boolean);
    if (items.length === 0) throw new GoFuncError(`improper constraint: ${text}`);
    return items.map(parseOne);
  });
  return (v) => ors.some((ands) => ands.every((c) => c(v)));
}

/** The semver functions. */
export const SEMVER_FUNCS: FuncMap = {
  semver: fn(["string"], (a) => parseVersion(a[0] as string)),
  semverCompare: fn(["string", "string"], (a) => {
    const c = constraint(a[0] as string);
    return c(parseVersion(a[1] as string));
  }),
};
