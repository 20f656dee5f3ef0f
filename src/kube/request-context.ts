/**
 * One request being prepared: its URL, method, headers, body, abort signal and dispatcher, as
 * client-node's `RequestContext` holds them. A kubeconfig's authentication writes its credential
 * headers and TLS dispatcher into it ({@link AuthTarget}), and the wire sends it (src/kube/wire.ts).
 * Our own because client-node's module also loads its fetch library, and with it undici's package
 * index (docs/controller.md#memory-at-start). client-node's `KubeConfig`, loaded for legacy auth
 * providers and proxies, writes into it through the same two methods.
 */
import type { Dispatcher } from "../undici.js";

/** The HTTP methods the kube client sends. */
export type HttpMethod = "GET" | "HEAD" | "POST" | "PUT" | "PATCH" | "DELETE";

/** What a kubeconfig's authentication writes: credential headers and the connection's dispatcher. */
export interface AuthTarget {
  setHeaderParam(key: string, value: string): void;
  setDispatcher(dispatcher: Dispatcher): void;
}

/** A request being prepared. */
export class RequestContext implements AuthTarget {
  private readonly headers: Record<string, string> = {};
  private body: string | undefined;
  private signal: AbortSignal | undefined;
  private dispatcher: Dispatcher | undefined;

  constructor(
    private readonly url: string,
    private readonly method: HttpMethod,
  ) {}

  getUrl(): string {
    return this.url;
  }
  getHttpMethod(): HttpMethod {
    return this.method;
  }
  getHeaders(): Readonly<Record<string, string>> {
    return this.headers;
  }
  setHeaderParam(key: string, value: string): void {
    this.headers[key] = value;
  }
  getBody(): string | undefined {
    return this.body;
  }
  setBody(body: string): void {
    this.body = body;
  }
  getSignal(): AbortSignal | undefined {
    return this.signal;
  }
  setSignal(signal: AbortSignal): void {
    this.signal = signal;
  }
  getDispatcher(): Dispatcher | undefined {
    return this.dispatcher;
  }
  setDispatcher(dispatcher: Dispatcher): void {
    this.dispatcher = dispatcher;
  }
}
