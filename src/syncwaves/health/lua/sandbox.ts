/**
 * A fresh Lua state for one health script: only the base, string, table and math libraries
 * (`useOpenLibs` adds coroutine and utf8; io, os, debug and package are never opened, so there is
 * no `require`), without `dofile` and `loadfile`, with `load` restricted to text chunks, `print`
 * silenced, `string.dump` removed and `string.rep` capped at 1 MiB (one call could otherwise take
 * the process's memory), plus the Lua 5.1 names Argo CD's scripts use (its VM is
 * gopher-lua, a Lua 5.1): `table.getn`, `unpack`, `math.pow` and `loadstring`.
 */
import type { LuaState } from "fengari";
import { fengariLib } from "./fengari-lib.js";

/** Runs in every state before the script: removes what a script must not reach, adds the 5.1 names. */
const PRELUDE = `
local rawload, select = load, select
dofile, loadfile = nil, nil
print = function() end
string.dump = nil
local rawrep = string.rep
string.rep = function(s, n, sep)
  local size = (#tostring(s) + #tostring(sep or "")) * (tonumber(n) or 0)
  if size > 1048576 then error("string.rep result larger than 1 MiB", 2) end
  return rawrep(s, n, sep)
end
load = function(chunk, name, _, ...)
  if select("#", ...) > 0 then return rawload(chunk, name, "t", ...) end
  return rawload(chunk, name, "t")
end
loadstring = function(s, name) return load(s, name) end
unpack = unpack or table.unpack
table.getn = table.getn or function(t) return #t end
math.pow = math.pow or function(x, y) return x ^ y end
`;

/** A new sandboxed state. */
export function newSandbox(useOpenLibs: boolean): LuaState {
  const { lua, lauxlib, lualib, to_luastring } = fengariLib();
  const BASE_LIBS: readonly [string, (L: LuaState) => number][] = [
    ["_G", lualib.luaopen_base],
    ["string", lualib.luaopen_string],
    ["table", lualib.luaopen_table],
    ["math", lualib.luaopen_math],
  ];
  const OPEN_LIBS: readonly [string, (L: LuaState) => number][] = [
    ["coroutine", lualib.luaopen_coroutine],
    ["utf8", lualib.luaopen_utf8],
  ];
  const L = lauxlib.luaL_newstate();
  for (const [name, open] of [...BASE_LIBS, ...(useOpenLibs ? OPEN_LIBS : [])]) {
    lauxlib.luaL_requiref(L, to_luastring(name), open, 1);
    lua.lua_pop(L, 1);
  }
  const prelude = to_luastring(PRELUDE);
  if (lauxlib.luaL_loadbufferx(L, prelude, prelude.length, to_luastring("=prelude"), to_luastring("t")) !== lua.LUA_OK) {
    throw new Error("the health script sandbox failed to load");
  }
  if (lua.lua_pcall(L, 0, 0, 0) !== lua.LUA_OK) throw new Error("the health script sandbox failed to start");
  return L;
}
