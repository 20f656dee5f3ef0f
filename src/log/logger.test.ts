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
    expect(rec.time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });

  it("writes key=value lines in text format", () => {
    const { lines, stream } = capture();
    createLogger({ level: "debug", format: "text", destination: stream, now: () => Date.UTC(2026, 0, 2, 3, 4, 5, 600) }).warn(
      { n: 2 },
      "two things",
    );
    expect(lines).toEqual(['time="2026-01-02T03:04:05Z" level=warn msg="two things" n=2\n']);
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

describe("log.format.timestamp", () => {
  const at = Date.UTC(2026, 2, 4, 5, 6, 7, 890);

  it.each([
    { layout: "2006-01-02T15:04:05Z07:00", expected: "2026-03-04T05:06:07Z" },
    { layout: "2006-01-02T15:04:05.000Z07:00", expected: "2026-03-04T05:06:07.890Z" },
    { layout: "Jan _2 15:04:05", expected: "Mar  4 05:06:07" },
  ])("json lines carry the time in the Go layout $layout", ({ layout, expected }) => {
    const { lines, stream } = capture();
    createLogger({ level: "info", format: "json", destination: stream, timestampLayout: layout, now: () => at }).info("x");
    expect((JSON.parse(lines[0]!) as Record<string, unknown>).time).toBe(expected);
  });

  it("text lines start with the time, as logrus prints them", () => {
    const { lines, stream } = capture();
    const log = createLogger({
      level: "info",
      format: "text",
      destination: stream,
      timestampLayout: "2006-01-02T15:04:05Z07:00",
      now: () => at,
    });
    log.info({ n: 1 }, "hello");
    expect(lines).toEqual(['time="2026-03-04T05:06:07Z" level=info msg="hello" n=1\n']);
  });
});
