/** The part of fengari's API (a Lua 5.3 VM in JavaScript) the health scripts use. */
declare module "fengari" {
  /** A Lua state (opaque). */
  export interface LuaState {
    readonly __luaState: never;
  }
  type LuaString = Uint8Array;
  type LuaCFunction = (L: LuaState) => number;
  type LuaHook = (L: LuaState, ar: unknown) => void;

  interface Lua {
    readonly LUA_OK: number;
    readonly LUA_MULTRET: number;
    readonly LUA_MASKCOUNT: number;
    readonly LUA_TNIL: number;
    readonly LUA_TBOOLEAN: number;
    readonly LUA_TNUMBER: number;
    readonly LUA_TSTRING: number;
    readonly LUA_TTABLE: number;
    readonly lua_checkstack: (L: LuaState, n: number) => boolean;
    readonly lua_createtable: (L: LuaState, narr: number, nrec: number) => void;
    readonly lua_gettop: (L: LuaState) => number;
    readonly lua_pcall: (L: LuaState, nargs: number, nresults: number, msgh: number) => number;
    readonly lua_pop: (L: LuaState, n: number) => void;
    readonly lua_pushboolean: (L: LuaState, b: boolean) => void;
    readonly lua_pushinteger: (L: LuaState, n: number) => void;
    readonly lua_pushnil: (L: LuaState) => void;
    readonly lua_pushnumber: (L: LuaState, n: number) => void;
    readonly lua_pushstring: (L: LuaState, s: LuaString) => void;
    readonly lua_rawget: (L: LuaState, idx: number) => number;
    readonly lua_rawset: (L: LuaState, idx: number) => void;
    readonly lua_rawseti: (L: LuaState, idx: number, n: number) => void;
    readonly lua_setglobal: (L: LuaState, name: LuaString) => void;
    readonly lua_sethook: (L: LuaState, hook: LuaHook | null, mask: number, count: number) => void;
    readonly lua_settop: (L: LuaState, idx: number) => void;
    readonly lua_tojsstring: (L: LuaState, idx: number) => string | null;
    readonly lua_type: (L: LuaState, idx: number) => number;
    readonly lua_typename: (L: LuaState, t: number) => LuaString;
  }
  interface LauxLib {
    readonly luaL_error: (L: LuaState, fmt: LuaString) => never;
    // eslint-disable-next-line max-params -- the C API of Lua, as fengari exposes it
    readonly luaL_loadbufferx: (L: LuaState, buff: LuaString, size: number, name: LuaString, mode: LuaString | null) => number;
    readonly luaL_newstate: () => LuaState;
    readonly luaL_requiref: (L: LuaState, modname: LuaString, openf: LuaCFunction, glb: number) => void;
    readonly luaL_tolstring: (L: LuaState, idx: number) => LuaString;
  }
  interface LuaLib {
    luaopen_base: LuaCFunction;
    luaopen_coroutine: LuaCFunction;
    luaopen_math: LuaCFunction;
    luaopen_string: LuaCFunction;
    luaopen_table: LuaCFunction;
    luaopen_utf8: LuaCFunction;
  }
  interface Fengari {
    readonly lua: Lua;
    readonly lauxlib: LauxLib;
    readonly lualib: LuaLib;
    readonly to_luastring: (s: string) => LuaString;
    readonly to_jsstring: (s: LuaString) => string;
  }
  const fengari: Fengari;
  export default fengari;
}
