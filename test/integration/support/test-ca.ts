/**
 * A private certificate authority for tests, made with the real `openssl`: a CA, a server
 * certificate for `localhost` (or the names asked for) and 127.0.0.1, and a client certificate, all PEM.
 */
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** PEM texts of a CA and the certificates it signed. */
export interface TestCa {
  readonly caCert: string;
  readonly serverCert: string;
  readonly serverKey: string;
  readonly clientCert: string;
  readonly clientKey: string;
}

function openssl(dir: string, ...args: string[]): void {
  execFileSync("openssl", args, { cwd: dir, stdio: ["ignore", "ignore", "pipe"] });
}

function signed(dir: string, name: string, subject: string, ext: string): void {
  openssl(dir, "req", "-new", "-newkey", "rsa:2048", "-nodes", "-keyout", `${name}.key`, "-out", `${name}.csr`, "-subj", subject);
  writeFileSync(join(dir, `${name}.ext`), ext);
  openssl(
    dir,
    "x509",
    "-req",
    "-in",
    `${name}.csr`,
    "-CA",
    "ca.crt",
    "-CAkey",
    "ca.key",
    "-CAcreateserial",
    "-days",
    "2",
    "-extfile",
    `${name}.ext`,
    "-out",
    `${name}.crt`,
  );
}

/** Makes a CA and its certificates in `dir`; the server certificate names 127.0.0.1 and `serverNames`. */
export function makeTestCa(dir: string, serverNames: readonly string[] = ["localhost"]): TestCa {
  openssl(
    dir,
    "req",
    "-x509",
    "-newkey",
    "rsa:2048",
    "-nodes",
    "-keyout",
    "ca.key",
    "-out",
    "ca.crt",
    "-days",
    "2",
    "-subj",
    "/CN=appset test CA",
  );
  const names = [...serverNames.map((n) => `DNS:${n}`), "IP:127.0.0.1"].join(",");
  signed(dir, "server", `/CN=${serverNames[0] ?? "localhost"}`, `subjectAltName=${names}\nextendedKeyUsage=serverAuth\n`);
  signed(dir, "client", "/CN=appset-client", "extendedKeyUsage=clientAuth\n");
  const read = (f: string): string => readFileSync(join(dir, f), "utf8");
  return {
    caCert: read("ca.crt"),
    serverCert: read("server.crt"),
    serverKey: read("server.key"),
    clientCert: read("client.crt"),
    clientKey: read("client.key"),
  };
}
