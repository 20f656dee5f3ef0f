/**
 * Kubernetes resource quantities (apimachinery `resource.Quantity`), as far as a comparison needs
 * them: the value a quantity string (or a JSON number) stands for, so that `1`, `"1"` and `"1000m"`,
 * or `1Gi` and `1073741824`, compare equal the way Argo CD's known-types normalisation makes them
 * equal. Pure.
 *
 * Grammar (as `ParseQuantity` reads it): an optional sign, digits with an optional fraction
 * (`1`, `1.5`, `1.`, `.5`), then a suffix: binary SI (`Ki` … `Ei`), decimal SI (`n`, `u`, `m`, ``,
 * `k`, `M`, `G`, `T`, `P`, `E`) or a decimal exponent (`e`/`E` and a signed integer). A non-zero
 * value is rounded up (away from zero) to a whole number of nano units, as Kubernetes rounds it.
 * Beyond Kubernetes, no upper bound is applied (it caps binary-SI values at 2^63-1).
 */

const BINARY: Readonly<Record<string, number>> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };
const DECIMAL: Readonly<Record<string, number>> = { n: -9, u: -6, m: -3, "": 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const NUMBER = /^([+-]?)(\d*)(?:\.(\d*))?(.*)$/s;
const EXPONENT = /^[eE]([+-]?\d+)$/;

/** A quantity's suffix as (power of two, power of ten); undefined when it is not one. */
function suffixPowers(suffix: string): { two: number; ten: number } | undefined {
  const bin = BINARY[suffix];
  if (bin !== undefined) return { two: bin, ten: 0 };
  const dec = DECIMAL[suffix];
  if (dec !== undefined) return { two: 0, ten: dec };
  const exp = EXPONENT.exec(suffix);
  return exp === null ? undefined : { two: 0, ten: Number(exp[1]) };
}

/** A JSON number is read as its decimal text; a non-finite one is no quantity. */
const quantityText = (input: string | number): string => (typeof input === "string" ? input : Number.isFinite(input) ? String(input) : "");

/** A quantity's sign, digits and suffix powers; undefined when the text is not a quantity. */
function quantityParts(
  input: string | number,
): { sign: string; whole: string; fraction: string; powers: { two: number; ten: number } } | undefined {
  const text = quantityText(input);
  const m = text === "" ? null : NUMBER.exec(text);
  if (m === null) return undefined;
  const [, sign = "", whole = "", fraction = "", suffix = ""] = m;
  // Kubernetes also reads a bare suffix or sign as zero; a quantity here needs a digit.
  if (whole === "" && fraction === "") return undefined;
  const powers = suffixPowers(suffix);
  if (powers === undefined || Math.abs(powers.ten) > 1000) return undefined;
  return { sign, whole, fraction, powers };
}

const ceilDiv = (n: bigint, d: bigint): bigint => (n + d - 1n) / d;

/**
 * The value of a quantity in nano units (signed, rounded up in magnitude); undefined when the
 * text is not a quantity. A number is read as its decimal text (`0.5` → 500000000n).
 */
export function quantityNanos(input: string | number): bigint | undefined {
  const parts = quantityParts(input);
  if (parts === undefined) return undefined;
  const { sign, whole, fraction, powers } = parts;
  // value = digits × 10^(ten − fraction length) × 2^two, in nanos: × 10^9.
  const digits = BigInt(`${whole}${fraction}` || "0");
  const tenPower = powers.ten - fraction.length + 9;
  let numerator = digits << BigInt(powers.two);
  let denominator = 1n;
  if (tenPower >= 0) numerator *= 10n ** BigInt(tenPower);
  else denominator = 10n ** BigInt(-tenPower);
  const magnitude = ceilDiv(numerator, denominator);
  return sign === "-" ? -magnitude : magnitude;
}

/** True when both values are quantities of the same value. */
export function quantitiesEqual(a: unknown, b: unknown): boolean {
  if ((typeof a !== "string" && typeof a !== "number") || (typeof b !== "string" && typeof b !== "number")) return false;
  const x = quantityNanos(a);
  return x !== undefined && x === quantityNanos(b);
}
