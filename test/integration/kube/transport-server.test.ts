/**
 * Which server an error names: every failure of a transport carries its apiserver's `host:port`
 * (`KubeApiError.server`), so the sync engine, whose Applications reach several clusters, can tell
 * a destination cluster that does not answer from its own apiserver. Against real local sockets: a
 * port nobody listens on, and a server answering 503.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { kubeFailure } from "../../support/kube-failure.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { KubeApiClient } from "../../../src/kube/client.js";
import { resources, unreachableServer } from "../../../src/kube/index.js";

let unavailable: Server;
let unavailableHost: string;
let closedHost: string;

beforeAll(async () => {
  unavailable = createServer((_req, res) => {
    res.statusCode = 503;
    res.setHeader("Content-Type", "application/json");
    res.end(
      JSON.stringify({ kind: "Status", apiVersion: "v1", status: "Failure", code: 503, reason: "ServiceUnavailable", message: "down" }),
    );
  });
  await new Promise<void>((resolve) => unavailable.listen(0, "127.0.0.1", resolve));
  unavailableHost = `127.0.0.1:${(unavailable.address() as AddressInfo).port}`;
  // A port that was just free: nothing listens on it once the server closes.
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  closedHost = `127.0.0.1:${(probe.address() as AddressInfo).port}`;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
});

afterAll(async () => {
  await new Promise<void>((resolve) => unavailable.close(() => resolve()));
});

describe("the server a transport's errors name", () => {
  it.each([
    // name; which host; the reason expected
    { name: "no listener (connection refused)", host: () => closedHost, reason: "Network" },
    { name: "a 503 answer", host: () => unavailableHost, reason: "ServerError" },
  ])("$name: a request's error names the server as unreachable", async ({ host, reason }) => {
    const client = KubeApiClient.fromOptions({ server: `http://${host()}`, skipTLSVerify: true });
    try {
      const err = await kubeFailure(client.get(resources.Namespaces, { name: "default" }));
      expect({ reason: err.reason, server: err.server, unreachable: unreachableServer(err) }).toEqual({
        reason,
        server: host(),
        unreachable: host(),
      });
    } finally {
      await client.transport.close();
    }
  });

  it("a watch that cannot open names the server too", async () => {
    const client = KubeApiClient.fromOptions({ server: `http://${closedHost}`, skipTLSVerify: true });
    try {
      const err = await kubeFailure(
        client.transport.stream({ method: "GET", path: "/api/v1/namespaces", query: { watch: true } }, () => {}),
      );
      expect([err.reason, err.server]).toEqual(["Network", closedHost]);
    } finally {
      await client.transport.close();
    }
  });
});
