import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseWatchEvent } from "./client.js";
import { KubeApiError } from "./errors.js";
import { ConfigMaps } from "./resources.js";
import { readLines } from "./lines.js";

function streamOf(chunks: string[]): ReadableStream<Uint8Array> {
  const enc = new TextEncoder();
  return new ReadableStream({
    start(controller) {
      for (const c of chunks) controller.enqueue(enc.encode(c));
      controller.close();
    },
  });
}

async function lines(chunks: string[]): Promise<string[]> {
  const out: string[] = [];
  await readLines(streamOf(chunks), (l) => out.push(l));
  return out;
}

describe("readLines", () => {
  it.each([
    // name: how the bytes arrive; chunks: the stream; expected: the lines handed out
    { name: "one line per chunk", chunks: ["a\n", "b\n"], expected: ["a", "b"] },
    { name: "a line split across chunks", chunks: ['{"ty', 'pe":1}\n'], expected: ['{"type":1}'] },
    { name: "several lines in one chunk", chunks: ["a\nb\nc\n"], expected: ["a", "b", "c"] },
    { name: "a last line without a newline", chunks: ["a\nb"], expected: ["a", "b"] },
    { name: "blank lines are skipped", chunks: ["\n\na\n\n"], expected: ["a"] },
  ])("splits $name", async ({ chunks, expected }) => {
    expect(await lines(chunks)).toEqual(expected);
  });

  it("decodes a multi-byte character whose bytes arrive in different chunks", async () => {
    const out: string[] = [];
    const stream = new ReadableStream<Uint8Array>({
      start(c) {
        c.enqueue(new Uint8Array([0xc3]));
        c.enqueue(new Uint8Array([0xa9, 0x0a]));
        c.close();
      },
    });
    await readLines(stream, (l) => out.push(l));
    expect(out).toEqual(["\u00e9"]);
  });

  it("joins a line of many chunks once, between lines that share its first and last chunk", async () => {
    const big = JSON.stringify({ status: { resources: Array.from({ length: 20_000 }, (_, i) => ({ name: `app-${i}`, note: "\u00e9" })) } });
    const text = `{"a":1}\n${big}\n{"b":2}\n`;
    const chunks: string[] = [];
    for (let i = 0; i < text.length; i += 16_384) chunks.push(text.slice(i, i + 16_384));
    expect(chunks.length).toBeGreaterThan(30);
    expect(await lines(chunks)).toEqual(['{"a":1}', big, '{"b":2}']);
  });

  it("rejects a line longer than the limit, and takes one at the limit", async () => {
    const read = (chunks: string[], max: number) => readLines(streamOf(chunks), () => undefined, max);
    await expect(read(["12345", "6789"], 8)).rejects.toThrow("a line of the response is longer than 8 bytes");
    await expect(read(["1234", "5678\n", "12345678"], 8)).resolves.toBeUndefined();
  });

  it("yields the same lines however the bytes are chunked", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.string({ unit: "grapheme", minLength: 1 }).filter((s) => !s.includes("\n") && s.trim() === s && s !== ""),
          { maxLength: 6 },
        ),
        fc.array(fc.nat(), { maxLength: 8 }),
        async (ls, cuts) => {
          const bytes = new TextEncoder().encode(ls.map((l) => `${l}\n`).join(""));
          const points = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
          const chunks: Uint8Array[] = [];
          let prev = 0;
          for (const p of [...points, bytes.length]) {
            chunks.push(bytes.slice(prev, p));
            prev = p;
          }
          const out: string[] = [];
          await readLines(
            new ReadableStream({
              start(c) {
                for (const ch of chunks) c.enqueue(ch);
                c.close();
              },
            }),
            (l) => out.push(l),
          );
          expect(out).toEqual(ls);
        },
      ),
    );
  });
});

describe("parseWatchEvent", () => {
  it("fills in apiVersion and kind of the object, which watch events may omit", () => {
    const ev = parseWatchEvent(ConfigMaps, JSON.stringify({ type: "ADDED", object: { metadata: { name: "a" } } }));
    expect(ev).toEqual({ type: "ADDED", object: { apiVersion: "v1", kind: "ConfigMap", metadata: { name: "a" } } });
  });

  it("keeps an ERROR event's Status as it is", () => {
    const status = { kind: "Status", apiVersion: "v1", code: 410, reason: "Expired" };
    expect(parseWatchEvent(ConfigMaps, JSON.stringify({ type: "ERROR", object: status })).object).toEqual(status);
  });

  it.each([
    // name: the malformed line; line: it
    { name: "a line that is not JSON", line: "{nope" },
    { name: "an unknown event type", line: JSON.stringify({ type: "WHATEVER", object: {} }) },
    { name: "an event without an object", line: JSON.stringify({ type: "ADDED" }) },
  ])("rejects $name instead of skipping it", ({ line }) => {
    expect(() => parseWatchEvent(ConfigMaps, line)).toThrow(KubeApiError);
  });
});
