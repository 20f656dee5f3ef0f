// Runs the Go template oracle (test/oracle/main.go): builds it once into a cache keyed by its
// sources, then renders batches of cases through it.
import { execFileSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** One case for the oracle. */
export interface OracleCase {
  template: string;
  params: Record<string, unknown>;
  options?: string[];
  goTemplate?: boolean;
}

/** The oracle's answer for one case. */
export interface OracleResult {
  output?: string;
  error?: string;
}

const here = dirname(fileURLToPath(import.meta.url));
let binary: string | undefined;

/** Builds (or reuses) the oracle binary and returns its path. */
export function oracleBinary(): string {
  binary ??= execFileSync("bash", [join(here, "build.sh")], { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] }).trim();
  return binary;
}

/** Renders cases with Go. */
export function runOracle(cases: OracleCase[]): OracleResult[] {
  const out = execFileSync(oracleBinary(), ["render"], { input: JSON.stringify(cases), encoding: "utf8", maxBuffer: 1 << 30 });
  return JSON.parse(out) as OracleResult[];
}

/** Go's answer for one duration text: nanoseconds (decimal) and Duration.String, or the error. */
export interface OracleDuration {
  nanos?: string;
  string?: string;
  error?: string;
}

/** Parses duration texts with Go's time.ParseDuration and prints each with Duration.String. */
export function runOracleDurations(texts: string[]): OracleDuration[] {
  const out = execFileSync(oracleBinary(), ["durations"], { input: JSON.stringify(texts), encoding: "utf8", maxBuffer: 1 << 30 });
  return JSON.parse(out) as OracleDuration[];
}

/** Runs the oracle's in-process benchmark loop. */
export function runOracleBench(input: { fields: string[]; params: Record<string, unknown>[]; options: string[]; iterations: number }): {
  renders: number;
  argoRendersPerSec: number;
  cachedRendersPerSec: number;
} {
  const out = execFileSync(oracleBinary(), ["bench"], { input: JSON.stringify(input), encoding: "utf8", maxBuffer: 1 << 30 });
  return JSON.parse(out) as { renders: number; argoRendersPerSec: number; cachedRendersPerSec: number };
}
