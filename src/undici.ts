/**
 * The parts of undici the product sends HTTP with, loaded from undici's own modules rather than its
 * package index: the index loads every dispatcher, mock, cache, fetch and WebSocket module, about
 * 12 MiB of resident memory a controller does not use (docs/controller.md#memory-at-start). The
 * types are undici's; `request` is the package's `request(url, options)`, called on
 * `options.dispatcher` (undici's global one when it is unset).
 */
import { createRequire } from "node:module";
import type * as Undici from "undici";

export type { Dispatcher } from "undici";

const load = createRequire(import.meta.url);

export const Agent = load("undici/lib/dispatcher/agent.js") as typeof Undici.Agent;
export const EnvHttpProxyAgent = load("undici/lib/dispatcher/env-http-proxy-agent.js") as typeof Undici.EnvHttpProxyAgent;
export const { getGlobalDispatcher } = load("undici/lib/global.js") as Pick<typeof Undici, "getGlobalDispatcher">;
/** The decompress interceptor (`interceptors.decompress`). */
export const decompressInterceptor = load("undici/lib/interceptor/decompress.js") as typeof Undici.interceptors.decompress;

type RequestOptions = Omit<Undici.Dispatcher.RequestOptions, "origin" | "path"> & { readonly dispatcher?: Undici.Dispatcher };
const apiRequest = load("undici/lib/api/api-request.js") as (
  this: Undici.Dispatcher,
  opts: Undici.Dispatcher.RequestOptions,
) => Promise<Undici.Dispatcher.ResponseData>;

/** undici's `request(url, options)`: one request to `url` on `options.dispatcher`. */
export function request(url: string | URL, options: RequestOptions): Promise<Undici.Dispatcher.ResponseData> {
  const { dispatcher = getGlobalDispatcher(), ...rest } = options;
  const target = new URL(url);
  return apiRequest.call(dispatcher, { ...rest, origin: target.origin, path: `${target.pathname}${target.search}` });
}
