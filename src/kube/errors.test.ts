import { ApiException } from "@kubernetes/client-node";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  asStatus,
  fromStatus,
  ignoreNotFound,
  isAlreadyExists,
  isConflict,
  isGone,
  isNotFound,
  atServer,
  isApiserverUnreachable,
  isTransient,
  KubeApiError,
  KubeReason,
  reasonForStatus,
  toKubeApiError,
  unreachableServer,
} from "./errors.js";

const status = (code: number, reason: string, message: string): string =>
  JSON.stringify({ kind: "Status", apiVersion: "v1", status: "Failure", code, reason, message });

const watchError = (statusCode: number): Error => Object.assign(new Error("Gone"), { statusCode });
const networkError = (code: string): Error => new TypeError("fetch failed", { cause: Object.assign(new Error("connect"), { code }) });

describe("toKubeApiError", () => {
  it.each([
    // name: the failure; err: what client-node/undici threw; reason, status, message: what we expect
    {
      name: "an ApiException 404 with a Status body is NotFound with the apiserver's message",
      err: new ApiException(404, "Unsuccessful HTTP Request", status(404, "NotFound", 'configmaps "x" not found'), {}),
      reason: KubeReason.NotFound,
      status: 404,
      message: 'configmaps "x" not found',
    },
    {
      name: "a 409 whose Status reason is AlreadyExists is AlreadyExists",
      err: new ApiException(409, "x", status(409, "AlreadyExists", 'configmaps "x" already exists'), {}),
      reason: KubeReason.AlreadyExists,
      status: 409,
      message: 'configmaps "x" already exists',
    },
    {
      name: "any other 409 is Conflict",
      err: new ApiException(409, "x", status(409, "Conflict", "the object has been modified"), {}),
      reason: KubeReason.Conflict,
      status: 409,
      message: "the object has been modified",
    },
    {
      name: "client-node's watch error with statusCode 410 is Gone",
      err: watchError(410),
      reason: KubeReason.Gone,
      status: 410,
      message: "HTTP 410",
    },
    {
      name: "a 422 is Invalid",
      err: new ApiException(422, "x", status(422, "Invalid", "spec: Required value"), {}),
      reason: KubeReason.Invalid,
      status: 422,
      message: "spec: Required value",
    },
    { name: "a 403 is Forbidden", err: watchError(403), reason: KubeReason.Forbidden, status: 403, message: "HTTP 403" },
    { name: "a 401 is Unauthorized", err: watchError(401), reason: KubeReason.Unauthorized, status: 401, message: "HTTP 401" },
    { name: "a 429 is TooManyRequests", err: watchError(429), reason: KubeReason.TooManyRequests, status: 429, message: "HTTP 429" },
    { name: "a 503 is ServerError", err: watchError(503), reason: KubeReason.ServerError, status: 503, message: "HTTP 503" },
    { name: "a 504 is Timeout", err: watchError(504), reason: KubeReason.Timeout, status: 504, message: "HTTP 504" },
    {
      name: "a non-JSON body is kept as the message",
      err: new ApiException(500, "x", "etcdserver: request timed out", {}),
      reason: KubeReason.ServerError,
      status: 500,
      message: "etcdserver: request timed out",
    },
    {
      name: "undici's fetch failed with ECONNREFUSED is Network",
      err: networkError("ECONNREFUSED"),
      reason: KubeReason.Network,
      status: 0,
      message: "fetch failed (ECONNREFUSED)",
    },
    {
      name: "a socket closed mid-stream is Network",
      err: Object.assign(new Error("other side closed"), { code: "UND_ERR_SOCKET" }),
      reason: KubeReason.Network,
      status: 0,
      message: "other side closed (UND_ERR_SOCKET)",
    },
    {
      name: "an aborted request is Timeout",
      err: new DOMException("The operation was aborted", "AbortError"),
      reason: KubeReason.Timeout,
      status: 0,
      message: "The operation was aborted",
    },
    {
      name: "client-node's watch inactivity timeout is Timeout",
      err: new DOMException("The operation was aborted due to timeout", "TimeoutError"),
      reason: KubeReason.Timeout,
      status: 0,
      message: "The operation was aborted due to timeout",
    },
    { name: "anything else is Unknown", err: new Error("boom"), reason: KubeReason.Unknown, status: 0, message: "boom" },
    { name: "a thrown string is Unknown", err: "boom", reason: KubeReason.Unknown, status: 0, message: "boom" },
  ])("$name", ({ err, reason, status: code, message }) => {
    const e = toKubeApiError(err);
    expect(e).toBeInstanceOf(KubeApiError);
    expect(e.reason).toBe(reason);
    expect(e.status).toBe(code);
    expect(e.message).toBe(message);
  });

  it("returns a KubeApiError unchanged", () => {
    const e = new KubeApiError({ status: 404, reason: KubeReason.NotFound, message: "x" });
    expect(toKubeApiError(e)).toBe(e);
  });

  it("keeps the original error as the cause", () => {
    const original = networkError("ECONNRESET");
    expect(toKubeApiError(original).cause).toBe(original);
  });
});

describe("fromStatus", () => {
  it("maps a watch ERROR event's Status (code in the body, no HTTP status) to Gone with statusReason Expired", () => {
    const e = fromStatus(0, { kind: "Status", code: 410, reason: "Expired", message: "too old resource version: 1 (200)" });
    expect([e.reason, e.status, e.statusReason, e.message]).toEqual([KubeReason.Gone, 410, "Expired", "too old resource version: 1 (200)"]);
  });

  it("appends the causes when the top-level message is generic", () => {
    const e = fromStatus(422, {
      kind: "Status",
      code: 422,
      message: "the server rejected our request due to an error in our request",
      details: { causes: [{ message: "testing value /data/a failed: test failed" }] },
    });
    expect(e.message).toBe("the server rejected our request due to an error in our request: testing value /data/a failed: test failed");
  });

  it("does not repeat a cause the message already contains", () => {
    const e = fromStatus(422, {
      kind: "Status",
      message: "x is invalid: spec.a: Required value",
      details: { causes: [{ message: "Required value" }] },
    });
    expect(e.message).toBe("x is invalid: spec.a: Required value");
  });

  it("ignores a body that is not a Status", () => {
    expect(asStatus({ kind: "ConfigMap", message: "nope" })).toBeUndefined();
    expect(asStatus("{not json")).toBeUndefined();
  });
});

describe("reasonForStatus", () => {
  it("maps every 5xx except 504 to ServerError and every unlisted 4xx to Unknown", () => {
    fc.assert(
      fc.property(fc.integer({ min: 100, max: 599 }), (code) => {
        const r = reasonForStatus(code);
        if (code >= 500 && code !== 504) expect(r).toBe(KubeReason.ServerError);
        if (code < 400) expect(r).toBe(KubeReason.Unknown);
        expect(Object.values(KubeReason)).toContain(r);
      }),
    );
  });
});

describe("predicates", () => {
  const err = (reason: KubeReason): KubeApiError => new KubeApiError({ status: 0, reason, message: "" });

  it.each([
    // name: the predicate; fn: it; yes: the reason it accepts
    { name: "isNotFound", fn: isNotFound, yes: KubeReason.NotFound },
    { name: "isConflict", fn: isConflict, yes: KubeReason.Conflict },
    { name: "isAlreadyExists", fn: isAlreadyExists, yes: KubeReason.AlreadyExists },
    { name: "isGone", fn: isGone, yes: KubeReason.Gone },
  ])("$name accepts exactly its own reason", ({ fn, yes }) => {
    for (const r of Object.values(KubeReason)) expect(fn(err(r))).toBe(r === yes);
    expect(fn(new Error(yes))).toBe(false);
  });

  it("treats conflicts, throttling, server errors, timeouts and network failures as transient, and nothing else", () => {
    const transient = Object.values(KubeReason).filter((r) => isTransient(err(r)));
    expect(transient.sort()).toEqual(["Conflict", "Gone", "Network", "ServerError", "Timeout", "TooManyRequests"]);
  });

  it("treats no answer, timeouts, server errors and throttling as the apiserver unreachable, also when wrapped, and nothing else", () => {
    const unreachable = Object.values(KubeReason).filter((r) => isApiserverUnreachable(err(r)));
    expect(unreachable.sort()).toEqual(["Network", "ServerError", "Timeout", "TooManyRequests"]);
    const wrapped = new Error("failed to update resources status", { cause: new Error("write", { cause: err(KubeReason.Network) }) });
    expect([isApiserverUnreachable(wrapped), isApiserverUnreachable(new Error("fetch failed")), isApiserverUnreachable("x")]).toEqual([
      true,
      false,
      false,
    ]);
  });

  it('unreachableServer names the server a failure to reach one names, "" when it names none, and nothing for other errors', () => {
    const at = (reason: KubeReason, server?: string): KubeApiError =>
      new KubeApiError({ status: 0, reason, message: "m", ...(server === undefined ? {} : { server }) });
    const wrapped = new Error("sync failed", { cause: at(KubeReason.Network, "10.0.0.1:6443") });
    expect([
      unreachableServer(at(KubeReason.Timeout, "10.0.0.1:6443")),
      unreachableServer(wrapped),
      unreachableServer(at(KubeReason.ServerError)),
      unreachableServer(at(KubeReason.Conflict, "10.0.0.1:6443")),
      unreachableServer(new Error("fetch failed")),
    ]).toEqual(["10.0.0.1:6443", "10.0.0.1:6443", "", undefined, undefined]);
  });

  it("atServer names the server on an error that names none, keeps one already named, and folds other errors", () => {
    const named = atServer(new KubeApiError({ status: 0, reason: KubeReason.Network, message: "m", server: "a:1" }), "b:2");
    const plain = atServer(new KubeApiError({ status: 503, reason: KubeReason.ServerError, message: "m" }), "b:2");
    const net = atServer(networkError("ECONNREFUSED"), "b:2");
    expect([named.server, plain.server, net.server, net.reason]).toEqual(["a:1", "b:2", "b:2", KubeReason.Network]);
  });

  it("ignoreNotFound turns NotFound into undefined and rethrows anything else", async () => {
    await expect(ignoreNotFound(Promise.reject(err(KubeReason.NotFound)))).resolves.toBeUndefined();
    await expect(ignoreNotFound(Promise.reject(err(KubeReason.Conflict)))).rejects.toBeInstanceOf(KubeApiError);
    await expect(ignoreNotFound(Promise.resolve(3))).resolves.toBe(3);
  });
});
