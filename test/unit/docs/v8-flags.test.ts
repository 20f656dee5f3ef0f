/**
 * docs/controller.md#v8-settings names the Node flags the `appset` command starts with: those of
 * src/cli/main.ts's first line, which the compiled script keeps.
 */
import { describe, expect, it } from "vitest";
import { readRepoFile } from "../deploy/generated.js";

describe("docs/controller.md#v8-settings", () => {
  it("names the flags of the appset command's first line", () => {
    const first = readRepoFile("src/cli/main.ts").split("\n", 1)[0]!;
    const flags = /^#!\/usr\/bin\/env -S node (--\S+(?: --\S+)*)$/.exec(first)?.[1];
    expect(flags, first).toContain("--max-semi-space-size=");
    const documented = /<!-- v8-flags -->\n`([^`]+)`/.exec(readRepoFile("docs/controller.md"))?.[1];
    expect(documented).toBe(flags);
  });
});
