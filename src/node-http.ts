/**
 * Node's `http` module, taken as CommonJS exports. An ECMAScript `import` of `node:http` builds the
 * module's namespace from every export, and its `WebSocket`, `CloseEvent` and `MessageEvent`
 * getters load Node's own fetch library (about 750 KiB of source) though nothing here uses it
 * (docs/controller.md#memory-at-start). A lint rule keeps value imports of `node:http` out of src.
 */
import type * as Http from "node:http";

export const nodeHttp: typeof Http = process.getBuiltinModule("node:http");
