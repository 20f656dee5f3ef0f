import { describe, expect, it } from "vitest";
import { appSet, context } from "../../test/unit/generators/builders.js";
import { encodeSecretData, type PluginGenerator, type Secret } from "../api/index.js";
import { pluginGenerator } from "./plugin.js";

// The requests to a real plugin server, their replies and their time limits are tested in
// test/integration/generators/plugin.test.ts.

const secret = (name: string, data: Record<string, string>): Secret => ({ metadata: { name }, data: encodeSecretData(data) });

/** Ports whose fetch fails the test: every case here is decided before any request. */
function ports(cm: Record<string, string>, secrets: Secret[] = [secret("argocd-secret", { "plugin.token": " tok-123 \n" })]) {
  return {
    configMaps: {
      getConfigMapData: (name: string) =>
        name === "my-plugin" ? Promise.resolve(cm) : Promise.reject(new Error(`configmaps "${name}" not found`)),
    },
    secrets: { getSecret: (name: string) => Promise.resolve(secrets.find((s) => s.metadata.name === name)) },
    fetch: (url: string): Promise<Response> => Promise.reject(new Error(`unexpected request to ${url}`)),
  };
}

const spec: PluginGenerator = { configMapRef: { name: "my-plugin" }, input: { parameters: { team: "blue", count: 2 } } };

describe("the Plugin generator before any request", () => {
  it.each<{ name: string; cm: Record<string, string>; error: string }>([
    // name; ConfigMap entries over a valid baseUrl and token; expected error
    {
      name: "a missing baseUrl is refused",
      cm: { baseUrl: "" },
      error: "error getting plugin from generator: error fetching ConfigMap: baseUrl not found in ConfigMap",
    },
    {
      name: "a missing token is refused",
      cm: { token: "" },
      error: "error getting plugin from generator: error fetching ConfigMap: token not found in ConfigMap",
    },
    {
      name: "a token not referencing a secret is refused",
      cm: { token: "plain" },
      error:
        "error getting plugin from generator: error fetching Secret token: token is empty, or does not reference a secret key starting with '$': plain",
    },
    {
      name: "a token in a Secret that does not exist is refused",
      cm: { token: "$nope:key" },
      error: 'error getting plugin from generator: error fetching Secret token: error fetching secret /nope: Secret "nope" not found',
    },
    {
      name: "a bad requestTimeout is refused",
      cm: { requestTimeout: "soon" },
      error: "error getting plugin from generator: error set requestTimeout : ",
    },
  ])("$name", async (row) => {
    const run = pluginGenerator.generate(
      spec,
      appSet([]),
      context(ports({ baseUrl: "http://plugin.invalid", token: "$plugin.token", ...row.cm })),
    );
    await expect(run).rejects.toMatchObject({
      reason: "ApplicationGenerationFromParamsError",
      message: expect.stringContaining(row.error),
    });
  });

  it("asks for a requeue after 30 minutes unless told otherwise", () => {
    expect(pluginGenerator.requeueAfterMs(spec, context().settings)).toBe(1_800_000);
    expect(pluginGenerator.requeueAfterMs({ ...spec, requeueAfterSeconds: 60 }, context().settings)).toBe(60_000);
  });
});

describe("the size of a plugin's answer", () => {
  /** Ports whose fetch answers 200 with `chunks` chunks of 1 KiB of JSON-ish text (endless when Infinity). */
  function answering(chunks: number): { ports: ReturnType<typeof ports>; pulled: () => number; aborted: () => boolean } {
    let pulled = 0;
    let signal: AbortSignal | undefined;
    const cm = { baseUrl: "http://plugin.invalid", token: "$plugin.token" };
    const base = ports(cm);
    const body = (async function* () {
      const head = '{"output":{"parameters":[{"pad":"';
      yield new TextEncoder().encode(head);
      for (; pulled < chunks; pulled++) {
        await Promise.resolve();
        yield new Uint8Array(1024).fill(97);
      }
      yield new TextEncoder().encode('"}]}}');
    })();
    const fetch = (_url: string, init: { signal: AbortSignal }) => {
      signal = init.signal;
      return Promise.resolve({ status: 200, body });
    };
    return {
      ports: { ...base, fetch } as unknown as ReturnType<typeof ports>,
      pulled: () => pulled,
      aborted: () => signal?.aborted === true,
    };
  }

  it("reads an answer within the limit", async () => {
    const a = answering(4);
    const params = await pluginGenerator.generate(spec, appSet([]), context(a.ports, { pluginMaxResponseBytes: 8 * 1024 }));
    expect(params).toHaveLength(1);
  });

  it("stops reading an endless answer at the limit, aborts the call and fails with the limit named", async () => {
    const a = answering(Number.POSITIVE_INFINITY);
    const run = pluginGenerator.generate(spec, appSet([]), context(a.ports, { pluginMaxResponseBytes: 64 * 1024 }));
    const err = await run.catch((e: unknown) => e);
    expect(err).toMatchObject({
      reason: "ApplicationGenerationFromParamsError",
      message:
        "error listing params: error get api 'test': plugin \"my-plugin\" answered more than 65536 bytes for http://plugin.invalid/api/v1/getparams.execute; raise --plugin-max-response-bytes to accept a larger answer",
    });
    expect((err as Error).cause).toMatchObject({ cause: { reason: "ResponseTooLarge" } });
    expect(a.pulled()).toBeLessThanOrEqual(64);
    expect(a.aborted()).toBe(true);
  });
});
