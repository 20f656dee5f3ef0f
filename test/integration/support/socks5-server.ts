/**
 * A real SOCKS5 proxy on 127.0.0.1 (RFC 1928 `CONNECT`, node:net), with optional username/password
 * authentication (RFC 1929). Like the HTTP forward proxy of these tests, it connects every
 * destination to 127.0.0.1, so a request for `scm.test` only works when it went through it. It
 * records each destination as the client sent it: a host name (the proxy resolves it) or an address.
 */
import { connect, createServer, type AddressInfo, type Server, type Socket } from "node:net";

/** One tunnel the proxy opened: the destination as sent and the user that authenticated. */
export interface SocksTunnel {
  readonly addressType: "ipv4" | "domain" | "ipv6";
  readonly host: string;
  readonly port: number;
  readonly user: string | undefined;
}

const NO_AUTH = 0x00;
const USER_PASS = 0x02;
const NO_ACCEPTABLE = 0xff;

/** Reads exactly `n` bytes from `socket` (the handshake is short and sent in order). */
function reader(socket: Socket): (n: number) => Promise<Buffer> {
  let buffered = Buffer.alloc(0);
  let waiting: { n: number; resolve: (b: Buffer) => void } | undefined;
  const pump = (): void => {
    if (waiting === undefined || buffered.length < waiting.n) return;
    const { n, resolve } = waiting;
    waiting = undefined;
    const out = buffered.subarray(0, n);
    buffered = buffered.subarray(n);
    resolve(out);
  };
  const onData = (chunk: Buffer): void => {
    buffered = Buffer.concat([buffered, chunk]);
    pump();
  };
  socket.on("data", onData);
  return (n) =>
    new Promise<Buffer>((resolve) => {
      waiting = { n, resolve };
      pump();
    });
}

async function destination(read: (n: number) => Promise<Buffer>): Promise<Omit<SocksTunnel, "user">> {
  const [, , , atyp] = await read(4);
  let addressType: SocksTunnel["addressType"];
  let host: string;
  if (atyp === 0x01) {
    addressType = "ipv4";
    host = [...(await read(4))].join(".");
  } else if (atyp === 0x04) {
    addressType = "ipv6";
    const raw = await read(16);
    host = Array.from({ length: 8 }, (_, i) => raw.readUInt16BE(i * 2).toString(16)).join(":");
  } else {
    addressType = "domain";
    const [len = 0] = await read(1);
    host = (await read(len)).toString("utf8");
  }
  const port = (await read(2)).readUInt16BE(0);
  return { addressType, host, port };
}

/** The SOCKS5 proxy under test. */
export class Socks5Proxy {
  readonly tunnels: SocksTunnel[] = [];
  /** When set, clients must authenticate with this username and password. */
  requireAuth: { user: string; password: string } | undefined;
  url = "";
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();

  private async authenticate(client: Socket, read: (n: number) => Promise<Buffer>): Promise<string | undefined | false> {
    const [, count = 0] = await read(2);
    const methods = [...(await read(count))];
    const want = this.requireAuth === undefined ? NO_AUTH : USER_PASS;
    if (!methods.includes(want)) {
      client.end(Buffer.from([0x05, NO_ACCEPTABLE]));
      return false;
    }
    client.write(Buffer.from([0x05, want]));
    if (this.requireAuth === undefined) return undefined;
    const [, ulen = 0] = await read(2);
    const user = (await read(ulen)).toString("utf8");
    const [plen = 0] = await read(1);
    const password = (await read(plen)).toString("utf8");
    const ok = user === this.requireAuth.user && password === this.requireAuth.password;
    client.write(Buffer.from([0x01, ok ? 0x00 : 0x01]));
    if (!ok) client.end();
    return ok ? user : false;
  }

  private async serve(client: Socket): Promise<void> {
    const read = reader(client);
    const user = await this.authenticate(client, read);
    if (user === false) return;
    const dest = await destination(read);
    this.tunnels.push({ ...dest, user });
    client.removeAllListeners("data");
    const upstream = connect(dest.port, "127.0.0.1", () => {
      client.write(Buffer.from([0x05, 0x00, 0x00, 0x01, 127, 0, 0, 1, 0, 0]));
      upstream.pipe(client);
      client.pipe(upstream);
    });
    this.sockets.add(upstream);
    upstream.on("error", () => client.end(Buffer.from([0x05, 0x05, 0x00, 0x01, 0, 0, 0, 0, 0, 0])));
    client.on("error", () => upstream.destroy());
  }

  async start(): Promise<void> {
    const server = createServer((client) => {
      this.sockets.add(client);
      client.on("close", () => this.sockets.delete(client));
      void this.serve(client);
    });
    this.server = server;
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    this.url = `socks5://127.0.0.1:${String((server.address() as AddressInfo).port)}`;
  }

  async stop(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }
}
