import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { encodeSecretData, type PluginGenerator, type Secret } from "../../../src/api/index.js";
import { FakeClock } from "../../../src/clock/index.js";
import { pluginGenerator, PluginTimeoutError } from "../../../src/generators/plugin.js";
import { appSet, context } from "../../unit/generators/builders.js";

// The refusals decided before any request, and the requeue interval, are in src/generators/plugin.test.ts.

interface Seen {
  path: string;
  headers: IncomingMessage["headers"];
  body: unknown;
}

/** A real plugin server on 127.0.0.1 whose reply each test sets. */
let server: Server;
let baseUrl = "";
const seen: Seen[] = [];
let reply: { status: number; body: string; hang?: boolean } = { status: 200, body: "" };

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString("utf8")));
    req.on("end", () => {
      seen.push({ path: req.url ?? "", headers: req.headers, body: body === "" ? undefined : JSON.parse(body) });
      if (reply.hang === true) return;
      res.writeHead(reply.status, { "Content-Type": "application/json" }).end(reply.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${String((server.address() as AddressInfo).port)}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const secret = (name: string, data: Record<string, string>): Secret => ({ metadata: { name }, data: encodeSecretData(data) });

function ports(cm: Record<string, string>, secrets: Secret[] = [secret("argocd-secret", { "plugin.token": " tok-123 \n" })]) {
  return {
    configMaps: {
      getConfigMapData: (name: string) =>
        name === "my-plugin" ? Promise.resolve(cm) : Promise.reject(new Error(`configmaps "${name}" not found`)),
    },
    secrets: { getSecret: (name: string) => Promise.resolve(secrets.find((s) => s.metadata.name === name)) },
    fetch: (url: string, init: Parameters<typeof fetch>[1]) => fetch(url, init),
  };
}

const spec: PluginGenerator = { configMapRef: { name: "my-plugin" }, input: { parameters: { team: "blue", count: 2 } } };

describe("the Plugin generator against a real HTTP server", () => {
  it("posts the documented request and uses each output object as a parameter set", async () => {
    reply = { status: 200, body: JSON.stringify({ output: { parameters: [{ name: "a", nested: { x: 1 } }, { name: "b" }] } }) };
    seen.length = 0;
    const got = await pluginGenerator.generate(
      { ...spec, values: { v: "{{ .name }}-{{ .generator.input.parameters.team }}" } },
      appSet([], { goTemplate: true }),
      context(ports({ baseUrl, token: "$plugin.token" })),
    );
    expect(seen).toHaveLength(1);
    expect(seen[0]!.path).toBe("/api/v1/getparams.execute");
    expect(seen[0]!.headers).toMatchObject({
      authorization: "Bearer tok-123",
      "content-type": "application/json",
      "user-agent": "argocd-applicationset",
    });
    expect(seen[0]!.body).toEqual({ applicationSetName: "test", input: { parameters: { team: "blue", count: 2 } } });
    expect(got).toEqual([
      { name: "a", nested: { x: 1 }, generator: { input: { parameters: { team: "blue", count: 2 } } }, values: { v: "a-blue" } },
      { name: "b", generator: { input: { parameters: { team: "blue", count: 2 } } }, values: { v: "b-blue" } },
    ]);
  });

  it("flattens output in fasttemplate mode and reads a $secret:key token", async () => {
    reply = { status: 200, body: JSON.stringify({ output: { parameters: [{ name: "a", nested: { x: 1 } }] } }) };
    seen.length = 0;
    const cm = { baseUrl: `${baseUrl}/`, token: "$other:key" };
    const got = await pluginGenerator.generate(spec, appSet([]), context(ports(cm, [secret("other", { key: "other-token" })])));
    expect(seen[0]!.headers.authorization).toBe("Bearer other-token");
    expect(got).toEqual([{ name: "a", "nested.x": "1", generator: { input: { parameters: { team: "blue", count: 2 } } } }]);
  });

  it.each([
    // name; server reply; ConfigMap; expected error
    { name: "an empty body means no parameters", reply: { status: 200, body: "" }, cm: {}, want: [] },
    {
      name: "a non-2xx reply carries the JSON message",
      reply: { status: 500, body: '{"message":"boom"}' },
      cm: {},
      error: "error listing params: error get api 'test': API error with status code 500: boom",
    },
    {
      name: "a non-2xx reply without JSON carries the raw body",
      reply: { status: 403, body: "denied" },
      cm: {},
      error: "API error with status code 403: denied",
    },
  ])("$name", async (row) => {
    reply = row.reply;
    const run = pluginGenerator.generate(
      spec,
      appSet([]),
      context(ports({ baseUrl, token: "$plugin.token", ...(row.cm as Record<string, string>) })),
    );
    if (row.error === undefined) await expect(run).resolves.toEqual(row.want);
    else
      await expect(run).rejects.toMatchObject({
        reason: "ApplicationGenerationFromParamsError",
        message: expect.stringContaining(row.error),
      });
  });

  it.each([
    // name; the ConfigMap's requestTimeout; how far the clock moves; the limit the message names
    { name: "times out after requestTimeout with an error, never an empty list", requestTimeout: "5", advanceMs: 5_000, limit: "5s" },
    { name: "takes Argo CD's 30 s default when requestTimeout is 0", requestTimeout: "0", advanceMs: 30_000, limit: "30s" },
    { name: "takes the 30 s default when requestTimeout is negative", requestTimeout: "-3", advanceMs: 30_000, limit: "30s" },
  ])("$name", async (row) => {
    reply = { status: 200, body: "", hang: true };
    seen.length = 0;
    const clock = new FakeClock();
    const ctx = { ...context(ports({ baseUrl, token: "$plugin.token", requestTimeout: row.requestTimeout })), clock };
    const run = pluginGenerator.generate(spec, appSet([]), ctx);
    const settled = run.then(
      () => "resolved",
      () => "rejected",
    );
    await expect.poll(() => seen.length).toBe(1);
    clock.advance(row.advanceMs - 1);
    expect(await Promise.race([settled, new Promise((r) => setImmediate(() => r("pending")))])).toBe("pending");
    clock.advance(1);
    await expect(run).rejects.toMatchObject({
      reason: "ApplicationGenerationFromParamsError",
      message: `error listing params: error get api 'test': plugin "my-plugin": request to ${baseUrl}/api/v1/getparams.execute timed out after ${row.limit}`,
      cause: { cause: expect.any(PluginTimeoutError) },
    });
  });

  it("names the cause when the plugin server cannot be reached", async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const url = `http://127.0.0.1:${String(port)}`;
    await expect(pluginGenerator.generate(spec, appSet([]), context(ports({ baseUrl: url, token: "$plugin.token" })))).rejects.toThrow(
      `error listing params: error get api 'test': Post "${url}/api/v1/getparams.execute": connect ECONNREFUSED 127.0.0.1:${String(port)}`,
    );
  });

  it("leaves the caller's abort an abort, not a timeout", async () => {
    reply = { status: 200, body: "", hang: true };
    seen.length = 0;
    const caller = new AbortController();
    const ctx = { ...context(ports({ baseUrl, token: "$plugin.token" })), clock: new FakeClock(), signal: caller.signal };
    const run = pluginGenerator.generate(spec, appSet([]), ctx);
    await expect.poll(() => seen.length).toBe(1);
    caller.abort(new Error("reconcile cancelled"));
    await expect(run).rejects.toThrow(/error get api 'test': reconcile cancelled$/);
  });
});
