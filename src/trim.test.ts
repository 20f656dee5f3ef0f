import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { trimEndOf, trimTrailingSlashes } from "./trim.js";

describe("trimming the end of a text", () => {
  it.each([
    // name: what the row shows; text: the input; chars: the run trimmed; want: the result
    { name: "trailing slashes go", text: "https://x/", chars: "/", want: "https://x" },
    { name: "only the last run goes", text: "a//b//", chars: "/", want: "a//b" },
    { name: "a text of the run alone becomes empty", text: "///", chars: "/", want: "" },
    { name: "a text without the run is unchanged", text: "a/b", chars: "/", want: "a/b" },
    { name: "any of several characters", text: "a \t\r\n", chars: " \t\r\n", want: "a" },
  ])("$name", ({ text, chars, want }) => {
    expect(trimEndOf(text, chars)).toBe(want);
  });

  it("does what the backtracking replace(/\\/+$/) did", () => {
    const text = fc.array(fc.constantFrom("/", "a", "\n", " "), { maxLength: 12 }).map((t) => t.join(""));
    fc.assert(fc.property(text, (t) => trimTrailingSlashes(t) === t.replace(/\/+$/, "")));
  });

  it("trims a 1 MiB run of slashes that does not end the text", () => {
    const text = `${"/".repeat(1 << 20)}a/`;
    expect(trimTrailingSlashes(text)).toBe(text.slice(0, -1));
  });
});
