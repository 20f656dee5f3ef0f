import { describe, expect, it } from "vitest";
import { formatLimit } from "./exec.js";

// runGit, running git, is tested in test/integration/git/exec.test.ts.

describe("formatLimit", () => {
  it.each([
    // name; the limit in ms; how the error message shows it
    { name: "whole seconds read as seconds", ms: 60_000, text: "60s" },
    { name: "one second", ms: 1000, text: "1s" },
    { name: "a fraction of a second reads as milliseconds", ms: 500, text: "500ms" },
    { name: "seconds and milliseconds read as milliseconds", ms: 1500, text: "1500ms" },
  ])("$name", ({ ms, text }) => {
    expect(formatLimit(ms)).toBe(text);
  });
});
