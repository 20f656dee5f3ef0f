/**
 * Runs a Lua health script (docs/sync-engine.md#custom-health) as Argo CD does: the live object is
 * the global `obj`, and the last value the script returns must be a table whose `status` is a
 * health code (`message` optional; `deletionMessage`, optional, is the message while the object is
 * being deleted: see ../deletion.ts), or nothing / nil for "no opinion". A script that fails, runs past its instruction budget or
 * returns something else throws a {@link HealthScriptError}; the caller reports it as `Unknown`
 * health with the error's message, as Argo CD does.
 */
import type { LuaState } from "fengari";
import { fengariLib } from "./fengari-lib.js";
import { HealthStatus } from "../../../api/index.js";
import { AppSetError } from "../../../errors.js";
import type { KubeObject } from "../../../kube/index.js";
import type { CheckedHealth } from "../deletion.js";
import { newSandbox } from "./sandbox.js";
import { pushValue } from "./values.js";

/** Instructions a script may run by default. */
export const DEFAULT_INSTRUCTION_BUDGET = 1_000_000;

/** Stable reasons of {@link HealthScriptError}. */
export const HealthScriptReason = {
  /** The script did not compile, or raised an error. */
  Failed: "HealthScriptFailed",
  /** The script ran more instructions than its budget. */
  BudgetExceeded: "HealthScriptBudgetExceeded",
  /** The script returned something other than a table with a valid status. */
  InvalidResult: "HealthScriptInvalidResult",
} as const;
export type HealthScriptReason = (typeof HealthScriptReason)[keyof typeof HealthScriptReason];

/** Argo CD's messages for what a script returned. */
export const HealthScriptMessage = {
  BudgetExceeded: "health script exceeded its instruction budget",
  InvalidStatus: "Lua returned an invalid health status",
  notTable: (type: string): string => `expect table output from Lua script, not ${type}`,
} as const;

/** A health script that could not give a health. */
export class HealthScriptError extends AppSetError {
  constructor(reason: HealthScriptReason, message: string) {
    super(reason, message);
  }
}

/** Options of {@link runHealthScript}. */
export interface HealthScriptOptions {
  readonly useOpenLibs?: boolean;
  /** Instructions the script may run (default {@link DEFAULT_INSTRUCTION_BUDGET}). */
  readonly instructionBudget?: number;
}

const CODES = new Set<string>(Object.values(HealthStatus));

/** The error value on top of the stack, as text. */
function errorText(L: LuaState): string {
  const { lua, to_jsstring } = fengariLib();
  if (lua.lua_type(L, -1) === lua.LUA_TSTRING) return lua.lua_tojsstring(L, -1) ?? "";
  return `(error object is a ${to_jsstring(lua.lua_typename(L, lua.lua_type(L, -1)))} value)`;
}

/** A string field of the table at `idx` (absolute), read without metamethods; other types give `{other}`. */
function stringField(L: LuaState, idx: number, name: string): string | undefined | { other: true } {
  const { lua, to_luastring } = fengariLib();
  lua.lua_pushstring(L, to_luastring(name));
  const type = lua.lua_rawget(L, idx);
  const value = type === lua.LUA_TSTRING ? (lua.lua_tojsstring(L, -1) ?? "") : type === lua.LUA_TNIL ? undefined : { other: true as const };
  lua.lua_pop(L, 1);
  return value;
}

/**
 * The health the script returned: its last result, with its `deletionMessage` when it set one;
 * undefined when it returned nothing or nil (Argo CD then falls back to its Go check of the kind).
 */
function resultOf(L: LuaState): CheckedHealth | undefined {
  const { lua, to_jsstring } = fengariLib();
  const top = lua.lua_gettop(L);
  const type = top === 0 ? lua.LUA_TNIL : lua.lua_type(L, top);
  if (type === lua.LUA_TNIL) return undefined;
  if (type !== lua.LUA_TTABLE) {
    throw new HealthScriptError(HealthScriptReason.InvalidResult, HealthScriptMessage.notTable(to_jsstring(lua.lua_typename(L, type))));
  }
  const status = stringField(L, top, "status");
  const message = stringField(L, top, "message");
  if (typeof status !== "string" || !CODES.has(status)) return { status: HealthStatus.Unknown, message: HealthScriptMessage.InvalidStatus };
  const deletionMessage = stringField(L, top, "deletionMessage");
  return {
    status: status as HealthStatus,
    ...(typeof message === "string" && message !== "" ? { message } : {}),
    ...(typeof deletionMessage === "string" && deletionMessage !== "" ? { deletionMessage } : {}),
  };
}

/**
 * Runs the script against `obj`: its health, or undefined when it returned nothing or nil; throws
 * {@link HealthScriptError} when it fails or returns something else.
 */
export function runHealthScript(script: string, obj: KubeObject, options: HealthScriptOptions = {}): CheckedHealth | undefined {
  const { lua, lauxlib, to_luastring } = fengariLib();
  const L = newSandbox(options.useOpenLibs === true);
  pushValue(L, obj);
  lua.lua_setglobal(L, to_luastring("obj"));
  const code = to_luastring(script);
  if (lauxlib.luaL_loadbufferx(L, code, code.length, to_luastring("=<string>"), to_luastring("t")) !== lua.LUA_OK) {
    throw new HealthScriptError(HealthScriptReason.Failed, errorText(L));
  }
  let exceeded = false;
  const hook = (state: LuaState): void => {
    exceeded = true;
    // From now on every instruction fails, so no pcall in the script can swallow the error for long.
    lua.lua_sethook(state, hook, lua.LUA_MASKCOUNT, 1);
    lauxlib.luaL_error(state, to_luastring(HealthScriptMessage.BudgetExceeded));
  };
  lua.lua_sethook(L, hook, lua.LUA_MASKCOUNT, options.instructionBudget ?? DEFAULT_INSTRUCTION_BUDGET);
  const status = lua.lua_pcall(L, 0, lua.LUA_MULTRET, 0);
  lua.lua_sethook(L, null, 0, 0);
  if (exceeded) throw new HealthScriptError(HealthScriptReason.BudgetExceeded, HealthScriptMessage.BudgetExceeded);
  if (status !== lua.LUA_OK) throw new HealthScriptError(HealthScriptReason.Failed, errorText(L));
  try {
    return resultOf(L);
  } catch (err) {
    if (err instanceof HealthScriptError) throw err;
    throw new HealthScriptError(HealthScriptReason.InvalidResult, `the script's result cannot be read: ${String(err)}`);
  }
}
