import { describe, expect, it } from "vitest";
import { createLogger } from "./logger.js";

function capture(): { lines: string[]; stream: { write(s: string): void } } {
  const lines: string[] = [];
  return { lines, stream: { write: (s: string) => lines.push(s) } };
}

describe("createLogger", () => {
  it("writes JSON lines with the level as a number and an ISO time in json format", () => {
    const { lines, stream } = capture();
    createLogger({ level: "info", format: "json", destination: stream }).info({ appset: "ns/a" }, "reconciled");
    const rec = JSON.parse(lines[0]!) as Record<string, unknown>;
    expect(rec).toMatchObject({ level: 30, msg: "reconciled", appset: "ns/a" });
    expect(typeof rec.time).toBe("string");
  });

  it("writes key=value lines in text format", () => {
    const { lines, stream } = capture();
    createLogger({ level: "debug", format: "text", destination: stream }).warn({ n: 2 }, "two things");
    expect(lines).toEqual(['level=warn msg="two things" n=2\n']);
  });

  it("drops lines below the configured level", () => {
    const { lines, stream } = capture();
    createLogger({ level: "warn", format: "json", destination: stream }).info("hidden");
    expect(lines).toEqual([]);
  });

  it.each([
    { name: "a field", log: (l: ReturnType<typeof createLogger>, big: string) => l.error({ error: big }, "failed"), field: "error" },
    { name: "the message", log: (l: ReturnType<typeof createLogger>, big: string) => l.error(big), field: "msg" },
  ])("cuts $name of a line to 8,192 characters with a marker", ({ log, field }) => {
    const { lines, stream } = capture();
    log(createLogger({ level: "info", format: "json", destination: stream }), "z".repeat(1_048_576));
    const value = (JSON.parse(lines[0]!) as Record<string, string>)[field]!;
    expect({ length: value.length, marker: /… \(\d+ more characters\)$/.test(value) }).toEqual({ length: 8_192, marker: true });
  });
});
