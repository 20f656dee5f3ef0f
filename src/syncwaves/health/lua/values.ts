/**
 * Puts a JSON value on a Lua stack as Argo CD hands a live object to its health scripts: objects
 * become tables keyed by field name, arrays 1-based sequences, integers Lua integers (so `tostring`
 * prints `3`, not `3.0`), other numbers floats, strings and booleans themselves, and `null` or an
 * absent field nil.
 */
import type { LuaState } from "fengari";
import { fengariLib } from "./fengari-lib.js";

/** How deep objects may nest (a Kubernetes object is far shallower). */
const MAX_DEPTH = 100;

function pushNumber(L: LuaState, n: number): void {
  const { lua } = fengariLib();
  if (Number.isSafeInteger(n)) lua.lua_pushinteger(L, n);
  else lua.lua_pushnumber(L, n);
}

function pushArray(L: LuaState, items: readonly unknown[], depth: number): void {
  const { lua } = fengariLib();
  lua.lua_createtable(L, items.length, 0);
  items.forEach((item, i) => {
    pushValue(L, item, depth + 1);
    lua.lua_rawseti(L, -2, i + 1);
  });
}

function pushObject(L: LuaState, fields: Record<string, unknown>, depth: number): void {
  const { lua, to_luastring } = fengariLib();
  const entries = Object.entries(fields);
  lua.lua_createtable(L, 0, entries.length);
  for (const [key, value] of entries) {
    lua.lua_pushstring(L, to_luastring(key));
    pushValue(L, value, depth + 1);
    lua.lua_rawset(L, -3);
  }
}

/** Pushes `value` (one slot); throws when it nests deeper than {@link MAX_DEPTH} or the stack cannot grow. */
export function pushValue(L: LuaState, value: unknown, depth = 0): void {
  const { lua, to_luastring } = fengariLib();
  if (depth > MAX_DEPTH || !lua.lua_checkstack(L, 3)) throw new Error(`object nests deeper than ${String(MAX_DEPTH)} levels`);
  switch (typeof value) {
    case "boolean":
      lua.lua_pushboolean(L, value);
      return;
    case "number":
      pushNumber(L, value);
      return;
    case "string":
      lua.lua_pushstring(L, to_luastring(value));
      return;
    case "object":
      if (value === null) break;
      if (Array.isArray(value)) pushArray(L, value as unknown[], depth);
      else pushObject(L, value as Record<string, unknown>, depth);
      return;
    default:
      break;
  }
  lua.lua_pushnil(L);
}
