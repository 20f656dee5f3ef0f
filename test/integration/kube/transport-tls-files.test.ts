/**
 * The kubeconfig's CA, client certificate and key files against a local TLS server that asks for a
 * client certificate: the transport reads them when it opens a connection, not on every request it
 * sends over the connection it holds, and reads them again for the next connection (so a rotated
 * file is picked up then).
 */
import { renameSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { KubeApiClient, resources } from "../../../src/kube/index.js";
import { TempDirs } from "../support/git-repos.js";
import { makeTestCa, type TestCa } from "../support/test-ca.js";

const temp = new TempDirs();
let ca: TestCa;
let server: Server;
let dir: string;
let kubeconfig: string;
let requests = 0;

beforeAll(async () => {
  dir = temp.make("kube-tls-files-");
  ca = makeTestCa(dir);
  const tls = { key: ca.serverKey, cert: ca.serverCert, ca: ca.caCert, requestCert: true, rejectUnauthorized: true };
  server = createServer(tls, (_req, res) => {
    requests++;
    res.setHeader("Content-Type", "application/json");
    res.end(JSON.stringify({ apiVersion: "v1", kind: "Namespace", metadata: { name: "default" } }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  writeFileSync(join(dir, "ca.pem"), ca.caCert);
  writeFileSync(join(dir, "client.pem"), ca.clientCert);
  writeFileSync(join(dir, "client-key.pem"), ca.clientKey);
  kubeconfig = join(dir, "kubeconfig");
  writeFileSync(
    kubeconfig,
    `apiVersion: v1
kind: Config
clusters:
- name: c
  cluster:
    server: https://127.0.0.1:${(server.address() as AddressInfo).port}
    certificate-authority: ca.pem
users:
- name: u
  user:
    client-certificate: client.pem
    client-key: client-key.pem
contexts:
- name: ctx
  context: {cluster: c, user: u}
current-context: ctx
`,
  );
});

afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()));
  temp.cleanup();
});

/** Moves the three files away; returns how to put them back. */
function hideFiles(): () => void {
  const names = ["ca.pem", "client.pem", "client-key.pem"];
  for (const n of names) renameSync(join(dir, n), join(dir, `${n}.away`));
  return () => {
    for (const n of names) renameSync(join(dir, `${n}.away`), join(dir, n));
  };
}

describe("TLS files of the kubeconfig", () => {
  it("are read for a connection, not for each request sent over it", async () => {
    const client = KubeApiClient.fromConfig({ kind: "file", path: kubeconfig });
    requests = 0;
    const get = (): Promise<unknown> => client.get(resources.Namespaces, { name: "default" });
    try {
      await get();
      const restore = hideFiles();
      try {
        for (let i = 0; i < 20; i++) await get();
      } finally {
        restore();
      }
    } finally {
      await client.transport.close();
    }
    // Every request after the first went out while none of the three files existed.
    expect(requests).toBe(21);
  });

  it("are read again for the next connection", async () => {
    const client = KubeApiClient.fromConfig({ kind: "file", path: kubeconfig });
    const get = (): Promise<unknown> => client.get(resources.Namespaces, { name: "default" });
    try {
      await get();
      await client.transport.close();
      const restore = hideFiles();
      try {
        await expect(get()).rejects.toThrow(/ENOENT/);
      } finally {
        restore();
      }
      await expect(get()).resolves.toMatchObject({ metadata: { name: "default" } });
    } finally {
      await client.transport.close();
    }
  });
});
