import { describe, expect, it } from "vitest";
import { bytesText, readBounded, RESPONSE_TOO_LARGE, ResponseTooLargeError, sizeLimitMessage, urlShown } from "./response-limit.js";

const detail = {
  source: 'plugin "p"',
  url: "https://user:pw@plugin.example:8443/api/v1/getparams.execute?x=1",
  limitBytes: 10,
  setting: "--x",
};

/** An endless body of `chunk`-byte chunks; `pulled()` says how many were taken, `closed()` whether the reader let go. */
function endless(chunk: number): { body: AsyncIterable<Uint8Array>; pulled: () => number; closed: () => boolean } {
  let pulled = 0;
  let closed = false;
  const body: AsyncIterable<Uint8Array> = {
    [Symbol.asyncIterator]: () => ({
      next: () => {
        pulled++;
        return Promise.resolve({ done: false, value: new Uint8Array(chunk) });
      },
      return: () => {
        closed = true;
        return Promise.resolve({ done: true, value: undefined });
      },
    }),
  };
  return { body, pulled: () => pulled, closed: () => closed };
}

async function* chunks(...sizes: number[]): AsyncIterable<Uint8Array> {
  for (const n of sizes) {
    await Promise.resolve();
    yield new Uint8Array(n).fill(97);
  }
}

describe("reading a body up to its limit", () => {
  it.each([
    // name; chunk sizes sent; whether the limit of 10 bytes is passed
    { name: "an empty body is read", sizes: [], over: false },
    { name: "a body under the limit is read whole", sizes: [3, 4], over: false },
    { name: "a body of exactly the limit is read whole", sizes: [5, 5], over: false },
    { name: "one byte over the limit fails", sizes: [5, 6], over: true },
    { name: "a single chunk over the limit fails", sizes: [11], over: true },
  ])("$name", async ({ sizes, over }) => {
    const read = readBounded(chunks(...sizes), detail);
    if (over) await expect(read).rejects.toBeInstanceOf(ResponseTooLargeError);
    else expect((await read).length).toBe(sizes.reduce((a, b) => a + b, 0));
  });

  it("stops pulling an endless body at the limit and lets the stream go", async () => {
    const e = endless(4);
    const err: unknown = await readBounded(e.body, detail).catch((x: unknown) => x);
    expect(err).toBeInstanceOf(ResponseTooLargeError);
    expect((err as ResponseTooLargeError).reason).toBe(RESPONSE_TOO_LARGE);
    expect(e.pulled()).toBe(3);
    expect(e.closed()).toBe(true);
  });
});

describe("the words of a size limit", () => {
  it("names who answered, the URL without credentials or query, the limit and the setting", () => {
    expect(sizeLimitMessage(detail)).toBe(
      'plugin "p" answered more than 10 bytes for https://plugin.example:8443/api/v1/getparams.execute; raise --x to accept a larger answer',
    );
  });

  it.each([
    // name; bytes; text
    { name: "a small count is in bytes", n: 1000, text: "1000 bytes" },
    { name: "a whole number of MiB says so", n: 10 * 1024 * 1024, text: "10485760 bytes (10 MiB)" },
    { name: "half a MiB past one is shown", n: 1.5 * 1024 * 1024, text: "1572864 bytes (1.5 MiB)" },
    { name: "a decimal gigabyte stays in bytes", n: 1_000_000_000, text: "1000000000 bytes" },
  ])("$name", ({ n, text }) => {
    expect(bytesText(n)).toBe(text);
  });

  it("keeps a text that is no URL as it is", () => {
    expect(urlShown("not a url")).toBe("not a url");
  });
});
