/**
 * The Plugin generator's time limits against real local servers that misbehave, through Node's
 * own fetch: `requestTimeout` bounds the whole call (on the injected clock, moved by hand here),
 * and fetch's own connect limit is reported as a timeout too. The tests assert the error, never
 * how long it took.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { encodeSecretData, type PluginGenerator } from "../../../src/api/index.js";
import { FakeClock } from "../../../src/clock/index.js";
import type { GeneratorContext, GeneratorPorts } from "../../../src/generators/index.js";
import { pluginGenerator, PluginTimeoutError } from "../../../src/generators/plugin.js";
import { appSet, context } from "../../unit/generators/builders.js";
import { silentServer, stalledBodyServer, unacceptingListener, type Misbehaving } from "./stalling-servers.js";

let silent: Misbehaving;
let stalled: Misbehaving;
let unaccepting: { url: string; close(): Promise<void> };

beforeAll(async () => {
  [silent, stalled, unaccepting] = await Promise.all([silentServer(), stalledBodyServer(), unacceptingListener()]);
});
afterAll(async () => {
  await Promise.all([silent.close(), stalled.close(), unaccepting.close()]);
});

const spec: PluginGenerator = { configMapRef: { name: "my-plugin" }, input: { parameters: { team: "blue" } } };

/** A plugin context over the real fetch; `responses` counts answers whose headers arrived. */
function pluginContext(baseUrl: string, requestTimeout: string): { ctx: GeneratorContext; clock: FakeClock; responses: () => number } {
  let responses = 0;
  const ports: GeneratorPorts = {
    configMaps: { getConfigMapData: () => Promise.resolve({ baseUrl, token: "$plugin.token", requestTimeout }) },
    secrets: { getSecret: (name) => Promise.resolve({ metadata: { name }, data: encodeSecretData({ "plugin.token": "tok" }) }) },
    fetch: async (url, init) => {
      const res = await fetch(url, init);
      responses++;
      return res;
    },
  };
  const clock = new FakeClock();
  return { ctx: { ...context(ports), clock }, clock, responses: () => responses };
}

function chain(err: unknown): unknown[] {
  const out: unknown[] = [];
  for (let e: unknown = err; e !== undefined; e = e instanceof Error ? e.cause : undefined) out.push(e);
  return out;
}

async function failure(run: Promise<unknown>): Promise<unknown> {
  return run.then(
    () => expect.unreachable("the call resolved"),
    (err: unknown) => err,
  );
}

describe("the Plugin generator against a plugin that does not answer in time", () => {
  it("fails with a timeout after requestTimeout when the plugin accepts the connection and never answers", async () => {
    const { ctx, clock } = pluginContext(silent.url, "1");
    const before = silent.count();
    const run = failure(pluginGenerator.generate(spec, appSet([]), ctx));
    await silent.seen(before + 1);
    clock.advance(1_000);
    const err = await run;
    expect(err).toMatchObject({
      reason: "ApplicationGenerationFromParamsError",
      message: `error listing params: error get api 'test': plugin "my-plugin": request to ${silent.url}/api/v1/getparams.execute timed out after 1s`,
    });
    expect(chain(err).find((e) => e instanceof PluginTimeoutError)).toMatchObject({
      plugin: "my-plugin",
      detail: { phase: "request", limitMs: 1_000 },
    });
  });

  it("fails with a timeout after requestTimeout when the plugin sends headers, then stalls the body", async () => {
    const { ctx, clock, responses } = pluginContext(stalled.url, "2");
    const run = failure(pluginGenerator.generate(spec, appSet([]), ctx));
    await expect.poll(responses).toBe(1);
    clock.advance(2_000);
    expect(await run).toMatchObject({
      reason: "ApplicationGenerationFromParamsError",
      message: `error listing params: error get api 'test': plugin "my-plugin": request to ${stalled.url}/api/v1/getparams.execute timed out after 2s`,
    });
  });

  it("fails with a timeout after requestTimeout when the connection never completes", async () => {
    const { ctx, clock } = pluginContext(unaccepting.url, "1");
    const run = failure(pluginGenerator.generate(spec, appSet([]), ctx));
    await expect.poll(() => clock.pendingTimers).toBe(1);
    clock.advance(1_000);
    expect(await run).toMatchObject({
      message: `error listing params: error get api 'test': plugin "my-plugin": request to ${unaccepting.url}/api/v1/getparams.execute timed out after 1s`,
    });
  });

  it("reports Node fetch's own connect limit (10 s) as a connection timeout", async () => {
    const { ctx } = pluginContext(unaccepting.url, "30");
    const err = await failure(pluginGenerator.generate(spec, appSet([]), ctx));
    expect(err).toMatchObject({
      reason: "ApplicationGenerationFromParamsError",
      message: `error listing params: error get api 'test': plugin "my-plugin": connection to ${unaccepting.url} timed out after 10s`,
    });
    expect(chain(err).find((e) => e instanceof PluginTimeoutError)).toMatchObject({ detail: { phase: "connect", limitMs: 10_000 } });
  });
});
