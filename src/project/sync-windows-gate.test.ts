import { describe, expect, it } from "vitest";
import type { SyncWindow } from "../api/appproject.js";
import {
  AUTO_SYNC_PREVENTED_MESSAGE,
  blockedOperationMessage,
  MANUAL_SYNC_BLOCKED_MESSAGE,
  manualSyncInvalidWindowMessage,
  SYNC_OPERATION_BLOCKED_MESSAGE,
  syncWindowPreventsSync,
  windowsPermitAutoSync,
} from "./sync-windows-gate.js";

const NOW = Date.parse("2024-03-05T12:30:00Z");
const app = { name: "guestbook", namespace: "prod", server: "https://kubernetes.default.svc" };
const denyNow = (extra: Partial<SyncWindow> = {}): SyncWindow => ({
  kind: "deny",
  schedule: "0 12 * * *",
  duration: "1h",
  applications: ["guestbook"],
  ...extra,
});

describe("the controller's texts for syncs held by windows", () => {
  it("uses Argo CD's wording", () => {
    expect(SYNC_OPERATION_BLOCKED_MESSAGE).toBe("Sync operation blocked by sync window");
    expect(AUTO_SYNC_PREVENTED_MESSAGE).toBe("Sync prevented by sync window");
    expect(MANUAL_SYNC_BLOCKED_MESSAGE).toBe("cannot sync: blocked by sync window");
    expect(manualSyncInvalidWindowMessage("boom")).toBe("cannot sync: invalid sync window: boom");
  });

  it.each([
    // error: the window error, if any; want: the operation's message
    { name: "a plain block", error: undefined, want: "Sync operation blocked by sync window" },
    {
      name: "a block caused by an unreadable window",
      error: "invalid sync windows: x",
      want: "Sync operation blocked by sync window: invalid sync windows: x",
    },
  ])("words $name", ({ error, want }) => {
    expect(blockedOperationMessage(error)).toBe(want);
  });
});

describe("holding a sync operation", () => {
  it.each([
    // windows: the project's windows; manual: who started the operation; started: its start; want: the gate
    {
      name: "an open deny window holds an automated operation",
      windows: [denyNow()],
      manual: false,
      started: undefined,
      want: { blocked: true },
    },
    {
      name: "an open deny window with manualSync lets a manual operation run",
      windows: [denyNow({ manualSync: true })],
      manual: true,
      started: undefined,
      want: { blocked: false },
    },
    {
      name: "a window for other applications holds nothing",
      windows: [denyNow({ applications: ["other"] })],
      manual: false,
      started: undefined,
      want: { blocked: false },
    },
    {
      name: "a deny window with overrun lets an operation started before it run",
      windows: [denyNow({ syncOverrun: true })],
      manual: false,
      started: "2024-03-05T11:59:00Z",
      want: { blocked: false },
    },
    {
      name: "an unreadable matching window holds the operation with its error",
      windows: [denyNow({ duration: "1 hour" })],
      manual: true,
      started: undefined,
      want: {
        blocked: true,
        error: `invalid sync windows: cannot parse duration '1 hour': time: unknown unit " hour" in duration "1 hour"`,
      },
    },
    {
      name: "an unreadable window that does not match holds nothing",
      windows: [denyNow({ duration: "1 hour", applications: ["other"] })],
      manual: false,
      started: undefined,
      want: { blocked: false },
    },
  ])("$name", ({ windows, manual, started, want }) => {
    const operationStartedAtMs = started === undefined ? undefined : Date.parse(started);
    expect(syncWindowPreventsSync(windows, app, { nowMs: NOW, manual, operationStartedAtMs })).toEqual(want);
  });
});

describe("attempting automated sync", () => {
  it.each([
    // windows: the project's windows; want: whether automated sync is attempted
    { name: "no windows permit it", windows: undefined, want: true },
    { name: "an open deny window prevents it", windows: [denyNow()], want: false },
    { name: "manualSync on the deny window does not help it", windows: [denyNow({ manualSync: true })], want: false },
    { name: "overrun does not help it, as it has no operation start", windows: [denyNow({ syncOverrun: true })], want: false },
    { name: "a closed allow window prevents it", windows: [{ ...denyNow(), kind: "allow", schedule: "0 1 * * *" }], want: false },
    { name: "an unreadable window prevents it", windows: [denyNow({ schedule: "0 25 * * *" })], want: false },
  ])("$name", ({ windows, want }) => {
    expect(windowsPermitAutoSync(windows, app, NOW)).toBe(want);
  });
});
