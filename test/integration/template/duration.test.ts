// Go duration text (time.ParseDuration, Duration.String) against real Go: random texts built from
// Go's grammar and its near misses, parsed and printed by Go and by us. Seeded by the run's seed.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { formatGoDuration, GoDurationError, parseGoDuration } from "../../../src/clock/go-duration.js";
import { runOracleDurations, type OracleDuration } from "../../oracle/oracle.js";
import { TEST_SEED } from "../../support/seed.js";

function ours(text: string): OracleDuration {
  try {
    const nanos = parseGoDuration(text);
    return { nanos: String(nanos), string: formatGoDuration(nanos) };
  } catch (err) {
    if (err instanceof GoDurationError) return { error: err.message };
    throw err;
  }
}

const digits = fc.stringMatching(/^\d{0,20}$/);
const unit = fc.constantFrom("ns", "us", "\u00b5s", "\u03bcs", "ms", "s", "m", "h", "", "d", "x", "S", " ", "é");
const term = fc
  .tuple(digits, fc.option(digits), unit)
  .map(([whole, fraction, u]) => `${whole}${fraction === null ? "" : `.${fraction}`}${u}`);
const text = fc.tuple(fc.constantFrom("", "-", "+"), fc.array(term, { maxLength: 4 })).map(([sign, terms]) => sign + terms.join(""));

describe("Go durations against Go's time package", () => {
  it("parses and prints 3,000 random texts exactly like Go", () => {
    const texts = [...fc.sample(text, { numRuns: 3_000, seed: TEST_SEED }), "0", "-0", "9223372036854775807ns", "-9223372036854775808ns"];
    const go = runOracleDurations(texts);
    const mismatches = texts.flatMap((t, i) => {
      const mine = ours(t);
      return JSON.stringify(mine) === JSON.stringify(go[i])
        ? []
        : [`${JSON.stringify(t)}: Go ${JSON.stringify(go[i])}, ours ${JSON.stringify(mine)}`];
    });
    expect(mismatches, `APPSET_TEST_SEED=${TEST_SEED}:\n${mismatches.slice(0, 10).join("\n")}`).toEqual([]);
  }, 120_000);
});
