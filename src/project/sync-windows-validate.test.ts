import { describe, expect, it } from "vitest";
import type { SyncWindow } from "../api/appproject.js";
import { syncWindowsProjectError, validateSyncWindow } from "./sync-windows-validate.js";

const good: SyncWindow = { kind: "allow", schedule: "0 22 * * *", duration: "1h", applications: ["*"] };

describe("validating one sync window", () => {
  it.each([
    // window: the window; error: the first problem Argo CD reports (undefined: valid)
    { name: "a valid window", window: good, error: undefined },
    { name: "an unknown time zone is no error", window: { ...good, timeZone: "Nowhere" }, error: undefined },
    { name: "a kind in capitals", window: { ...good, kind: "Allow" }, error: "kind 'Allow' mismatch: can only be allow or deny" },
    { name: "a missing kind", window: { ...good, kind: undefined }, error: "kind '' mismatch: can only be allow or deny" },
    {
      name: "a bad schedule",
      window: { ...good, schedule: "0 22 * *" },
      error: "cannot parse schedule '0 22 * *': expected exactly 5 fields, found 4: [0 22 * *]",
    },
    {
      name: "a bad duration",
      window: { ...good, duration: "1w" },
      error: `cannot parse duration '1w': time: unknown unit "w" in duration "1w"`,
    },
    {
      name: "the kind is checked before the schedule",
      window: { ...good, kind: "x", schedule: "bad" },
      error: "kind 'x' mismatch: can only be allow or deny",
    },
    { name: "a description of 255 bytes", window: { ...good, description: "a".repeat(255) }, error: undefined },
    {
      name: "a description of 256 bytes",
      window: { ...good, description: "a".repeat(256) },
      error: "description must not exceed 255 characters",
    },
    {
      name: "a description counted in UTF-8 bytes",
      window: { ...good, description: "é".repeat(128) },
      error: "description must not exceed 255 characters",
    },
  ])("$name", ({ window, error }) => {
    expect(validateSyncWindow(window)).toBe(error);
  });
});

describe("validating a project's windows", () => {
  it.each([
    // windows: the project's windows; error: the first problem (undefined: valid)
    { name: "no windows", windows: undefined, error: undefined },
    { name: "valid windows", windows: [good, { ...good, kind: "deny", namespaces: ["prod"] }], error: undefined },
    {
      name: "a window naming nothing",
      windows: [good, { ...good, applications: [] }],
      error: "window 'allow':'0 22 * * *':'1h' requires one of application, cluster or namespace",
    },
    {
      name: "the window's own problem first",
      windows: [{ ...good, applications: undefined, duration: "x" }],
      error: `cannot parse duration 'x': time: invalid duration "x"`,
    },
  ])("$name", ({ windows, error }) => {
    expect(syncWindowsProjectError(windows)).toBe(error);
  });
});
