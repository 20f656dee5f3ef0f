import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { quantitiesEqual, quantityNanos } from "./quantity.js";

describe("quantityNanos", () => {
  it.each([
    // name: the case; text: the quantity; nanos: its value in nano units (undefined: not a quantity)
    { name: "a plain integer", text: "1", nanos: 1_000_000_000n },
    { name: "a JSON number with a fraction", text: 0.5, nanos: 500_000_000n },
    { name: "milli", text: "500m", nanos: 500_000_000n },
    { name: "binary SI", text: "1Gi", nanos: 1_073_741_824_000_000_000n },
    { name: "decimal SI", text: "2k", nanos: 2_000_000_000_000n },
    { name: "an exponent", text: "1e3", nanos: 1_000_000_000_000n },
    { name: "a negative exponent", text: "15E-1", nanos: 1_500_000_000n },
    { name: "exa, not an exponent", text: "1E", nanos: 10n ** 27n },
    { name: "a fraction with a suffix", text: "1.5Gi", nanos: 1_610_612_736_000_000_000n },
    { name: "a leading dot", text: ".5", nanos: 500_000_000n },
    { name: "a trailing dot", text: "1.", nanos: 1_000_000_000n },
    { name: "a sign", text: "-1m", nanos: -1_000_000n },
    { name: "less than a nano rounds up", text: "0.1n", nanos: 1n },
    { name: "zero", text: "0", nanos: 0n },
    { name: "an unknown suffix", text: "1Q", nanos: undefined },
    { name: "a lower-case binary suffix", text: "1ki", nanos: undefined },
    { name: "no digits", text: "Mi", nanos: undefined },
    { name: "an empty string", text: "", nanos: undefined },
    { name: "two dots", text: "1.2.3", nanos: undefined },
    { name: "an exponent without digits", text: "1e", nanos: undefined },
  ])("$name", ({ text, nanos }) => {
    expect(quantityNanos(text)).toBe(nanos);
  });
});

describe("quantitiesEqual", () => {
  it.each([
    { name: "a number and its string", a: 1, b: "1", equal: true },
    { name: "a half and 500m", a: 0.5, b: "500m", equal: true },
    { name: "1Gi and its bytes", a: "1Gi", b: "1073741824", equal: true },
    { name: "1G is not 1Gi", a: "1G", b: "1Gi", equal: false },
    { name: "a non-quantity is never equal", a: "abc", b: "abc", equal: false },
    { name: "a boolean is not a quantity", a: true, b: "1", equal: false },
  ])("$name", ({ a, b, equal }) => {
    expect(quantitiesEqual(a, b)).toBe(equal);
  });

  const DECIMAL = [
    ["n", -9],
    ["u", -6],
    ["m", -3],
    ["", 0],
    ["k", 3],
    ["M", 6],
    ["G", 9],
    ["T", 12],
  ] as const;
  const BINARY = [
    ["Ki", 10],
    ["Mi", 20],
    ["Gi", 30],
    ["Ti", 40],
  ] as const;

  it("gives a decimal suffix the value of the same digits with the matching exponent, and of the plain number", () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 10n ** 12n }), fc.constantFrom(...DECIMAL), (n, [suffix, ten]) => {
        const plain = ten >= 0 ? `${n * 10n ** BigInt(ten)}` : `${n}e${ten}`;
        return quantitiesEqual(`${n}${suffix}`, `${n}e${ten}`) && quantitiesEqual(`${n}${suffix}`, plain);
      }),
    );
  });

  it("gives a binary suffix the value of the digits times its power of two", () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 10n ** 9n }), fc.constantFrom(...BINARY), (n, [suffix, two]) =>
        quantitiesEqual(`${n}${suffix}`, `${n << BigInt(two)}`),
      ),
    );
  });

  it("reads the same value however the digits are split between the fraction and the suffix", () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 1n, max: 10n ** 9n }), fc.integer({ min: 0, max: 9 }), (n, shift) => {
        const s = n.toString().padStart(shift + 1, "0");
        const fractional = `${s.slice(0, s.length - shift)}.${s.slice(s.length - shift)}`;
        return (
          quantityNanos(fractional) === quantityNanos(`${n}e-${shift}`) &&
          quantityNanos(`-${fractional}`) === -quantityNanos(`${n}e-${shift}`)!
        );
      }),
    );
  });

  it("is ordered as the values are: a larger integer of the same suffix is never equal", () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 0n, max: 10n ** 15n }),
        fc.bigInt({ min: 1n, max: 10n ** 6n }),
        fc.constantFrom(...DECIMAL),
        (n, d, [s]) => {
          return quantityNanos(`${n + d}${s}`)! > quantityNanos(`${n}${s}`)!;
        },
      ),
    );
  });
});
