import { describe, expect, it } from "vitest";
import { globSyntaxError } from "./glob-errors.js";

describe("globSyntaxError (the glob library's compile errors)", () => {
  it.each([
    // pattern: the glob
    // error: the expected error text, undefined when it compiles
    { name: "a valid glob has no error", pattern: "https://*.example.com", error: undefined },
    { name: "an unclosed class ends the input early", pattern: "[", error: "glob: syntax error at 1: unexpected end of input" },
    {
      name: "an unclosed class with characters ends the input early",
      pattern: "ns-[abc",
      error: "glob: syntax error at 7: unexpected end of input",
    },
    { name: "a trailing backslash is reported", pattern: "ns\\", error: "glob: syntax error at 3: trailing backslash" },
    { name: "an unclosed alternative is reported", pattern: "{a,b", error: "glob: syntax error at 4: unclosed `{`" },
  ])("$name", ({ pattern, error }) => {
    expect(globSyntaxError(pattern)).toBe(error);
  });
});
