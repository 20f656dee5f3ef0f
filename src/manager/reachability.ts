/**
 * Whether the apiserver answers, as the process's own requests show it (docs/controller.md#when-the-apiserver-cannot-be-reached).
 * The kube client tells {@link ApiserverReachability.observe} the outcome of every request it sends;
 * after one that got no answer, a 5xx or a 429, the first request answered otherwise (a relist or a
 * watch the informers reopen, any write) tells every listener that the apiserver is back, so the
 * work queues retry at once what waited for it instead of waiting for one of those keys to get
 * through by itself.
 */

/** Whether a request's code (`rest_client_requests_total`'s: the status, or `<error>` for no answer) is the apiserver answering. */
export function answered(code: string): boolean {
  const status = Number(code);
  return Number.isInteger(status) && status > 0 && status < 500 && status !== 429;
}

/** Tracks the apiserver's answers; tells listeners when it answers again after a failure. */
export class ApiserverReachability {
  private failing = false;
  private readonly listeners = new Set<() => void>();

  /** The kube client's request observer. */
  readonly observe = (request: { readonly code: string }): void => {
    if (!answered(request.code)) {
      this.failing = true;
      return;
    }
    if (!this.failing) return;
    this.failing = false;
    for (const listener of [...this.listeners]) listener();
  };

  /** Calls `listener` each time the apiserver answers after a failure; returns what unsubscribes it. */
  readonly onBack = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };
}

/**
 * {@link ApiserverReachability} for many servers at once, told apart by the `host` of each request
 * (the sync engine's destination clusters): tells listeners which server answers again after a
 * failure.
 */
export class ServerReachability {
  private readonly failing = new Set<string>();
  private readonly listeners = new Set<(server: string) => void>();

  /** A kube client's request observer. */
  readonly observe = (request: { readonly code: string; readonly host: string }): void => {
    if (!answered(request.code)) {
      this.failing.add(request.host);
      return;
    }
    if (!this.failing.delete(request.host)) return;
    for (const listener of [...this.listeners]) listener(request.host);
  };

  /** Calls `listener` with the server each time one answers after a failure; returns what unsubscribes it. */
  readonly onBack = (listener: (server: string) => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };
}
