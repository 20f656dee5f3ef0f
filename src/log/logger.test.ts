import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createLogger, formatJson, formatText, goQuote, type LogFormat, type Logger } from "./logger.js";

function capture(): { lines: string[]; stream: { write(s: string): void } } {
  const lines: string[] = [];
  return { lines, stream: { write: (s: string) => lines.push(s) } };
}

const AT = Date.UTC(2026, 0, 2, 3, 4, 5, 600);

function lineOf(format: LogFormat, log: (l: Logger) => void, timestampLayout?: string): string {
  const { lines, stream } = capture();
  log(
    createLogger({
      level: "debug",
      format,
      destination: stream,
      now: () => AT,
      ...(timestampLayout === undefined ? {} : { timestampLayout }),
    }),
  );
  return lines.join("");
}

describe("createLogger", () => {
  it.each([
    {
      name: "a message and fields, sorted",
      log: (l: Logger) => l.info({ zone: "b", app: "a" }, "reconciled"),
      json: '{"app":"a","level":"info","msg":"reconciled","time":"2026-01-02T03:04:05Z","zone":"b"}',
      text: 'time="2026-01-02T03:04:05Z" level=info msg=reconciled app=a zone=b',
    },
    {
      name: "warn as logrus's warning",
      log: (l: Logger) => l.warn({ n: 2 }, "two things"),
      json: '{"level":"warning","msg":"two things","n":2,"time":"2026-01-02T03:04:05Z"}',
      text: 'time="2026-01-02T03:04:05Z" level=warning msg="two things" n=2',
    },
    {
      name: "debug and error",
      log: (l: Logger) => (l.debug("d"), l.error("e")),
      json: '{"level":"debug","msg":"d","time":"2026-01-02T03:04:05Z"}\n{"level":"error","msg":"e","time":"2026-01-02T03:04:05Z"}',
      text: 'time="2026-01-02T03:04:05Z" level=debug msg=d\ntime="2026-01-02T03:04:05Z" level=error msg=e',
    },
    {
      name: "no message",
      log: (l: Logger) => l.info({ a: true }),
      json: '{"a":true,"level":"info","msg":"","time":"2026-01-02T03:04:05Z"}',
      text: 'time="2026-01-02T03:04:05Z" level=info a=true',
    },
    {
      name: "an Error under err, as logrus's WithError",
      log: (l: Logger) => l.error({ err: new Error("boom <now>") }, "Reconciler error"),
      json: '{"error":"boom \\u003cnow\\u003e","level":"error","msg":"Reconciler error","time":"2026-01-02T03:04:05Z"}',
      text: 'time="2026-01-02T03:04:05Z" level=error msg="Reconciler error" error="boom <now>"',
    },
    {
      name: "fields named like the line's own keys, prefixed",
      log: (l: Logger) => l.info({ time: 1, level: "x", msg: "m" }, "own"),
      json: '{"fields.level":"x","fields.msg":"m","fields.time":1,"level":"info","msg":"own","time":"2026-01-02T03:04:05Z"}',
      text: 'time="2026-01-02T03:04:05Z" level=info msg=own fields.level=x fields.msg=m fields.time=1',
    },
    {
      name: "a child's bindings among the fields",
      log: (l: Logger) =>
        l
          .child({ applicationset: { Namespace: "argocd", Name: "gb" }, reconcileID: "r-1" })
          .info({ application: "gb-dev" }, "created Application"),
      json: '{"application":"gb-dev","applicationset":{"Namespace":"argocd","Name":"gb"},"level":"info","msg":"created Application","reconcileID":"r-1","time":"2026-01-02T03:04:05Z"}',
      text: 'time="2026-01-02T03:04:05Z" level=info msg="created Application" application=gb-dev applicationset=argocd/gb reconcileID=r-1',
    },
    {
      name: "empty, null and object values",
      log: (l: Logger) => l.info({ commit: "", x: null, o: { a: [1] } }, "v"),
      json: '{"commit":"","level":"info","msg":"v","o":{"a":[1]},"time":"2026-01-02T03:04:05Z","x":null}',
      text: 'time="2026-01-02T03:04:05Z" level=info msg=v commit= o="{\\"a\\":[1]}" x=<nil>',
    },
  ])("$name", ({ log, json, text }) => {
    expect({ json: lineOf("json", log), text: lineOf("text", log) }).toEqual({ json: json + "\n", text: text + "\n" });
  });

  it("drops lines below the configured level", () => {
    const { lines, stream } = capture();
    createLogger({ level: "warn", format: "json", destination: stream }).info("hidden");
    expect(lines).toEqual([]);
  });

  it.each([
    { name: "a field", log: (l: Logger, big: string) => l.error({ error: big }, "failed"), field: "error" },
    { name: "the message", log: (l: Logger, big: string) => l.error(big), field: "msg" },
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
    { layout: "", json: "2026-03-04T05:06:07Z", text: 'time="2026-03-04T05:06:07Z"' },
    { layout: "2006-01-02T15:04:05Z07:00", json: "2026-03-04T05:06:07Z", text: 'time="2026-03-04T05:06:07Z"' },
    { layout: "2006-01-02T15:04:05.000Z07:00", json: "2026-03-04T05:06:07.890Z", text: 'time="2026-03-04T05:06:07.890Z"' },
    { layout: "Jan _2 15:04:05", json: "Mar  4 05:06:07", text: 'time="Mar  4 05:06:07"' },
    { layout: "20060102", json: "20260304", text: "time=20260304" },
  ])("lines carry the time in the Go layout '$layout'", ({ layout, json, text }) => {
    const log = (format: LogFormat) => {
      const { lines, stream } = capture();
      createLogger({ level: "info", format, destination: stream, timestampLayout: layout, now: () => at }).info("x");
      return lines[0]!;
    };
    expect({ json: (JSON.parse(log("json")) as Record<string, unknown>).time, text: log("text").split(" level=")[0] }).toEqual({
      json,
      text,
    });
  });
});

describe("goQuote", () => {
  it.each([
    { s: "plain", quoted: '"plain"' },
    { s: 'say "hi"\\', quoted: '"say \\"hi\\"\\\\"' },
    { s: "a\nb\tc\x07\x00\x7f", quoted: '"a\\nb\\tc\\a\\x00\\x7f"' },
    { s: "héllo ✓ 日本", quoted: '"héllo ✓ 日本"' },
    { s: "\u200b\u2028", quoted: '"\\u200b\\u2028"' },
  ])("quotes $s as Go's strconv.Quote", ({ s, quoted }) => {
    expect(goQuote(s)).toBe(quoted);
  });
});

/**
 * Lines of Argo CD's own ApplicationSet controller, v3.6.2 (the `argocd` binary run as
 * `argocd-applicationset-controller --namespace argo1 --logformat json|text --loglevel debug
 * --metrics-addr 127.0.0.1:0 --probe-addr 127.0.0.1:0 --webhook-addr 127.0.0.1:0` against a local
 * control plane holding one List-generator ApplicationSet, `argo1/guestbook`; the `apps from
 * generator` debug line, a Go struct dump, left out). Each one, read back as an entry, is written
 * again byte for byte by our formatters.
 */
describe("beside Argo CD v3.6.2's own lines", () => {
  const fixture = (format: LogFormat) =>
    readFileSync(
      join(
        import.meta.dirname,
        "../../test/fixtures/logs",
        `argocd-v3.6.2-applicationset-controller.${format === "json" ? "jsonl" : "txt"}`,
      ),
      "utf8",
    )
      .split("\n")
      .filter((l) => l !== "");

  it.each(fixture("json"))("json: %s", (line) => {
    const { time, level, msg, ...fields } = JSON.parse(line) as Record<string, unknown>;
    expect(formatJson({ time: String(time), level: String(level), msg: String(msg), fields })).toBe(line + "\n");
  });

  it.each(fixture("text"))("text: %s", (line) => {
    expect(formatText(parseText(line))).toBe(line + "\n");
  });

  it("our reconcile lines carry Argo CD's level words and its reconcile field names", () => {
    const argo = fixture("json").map((l) => JSON.parse(l) as Record<string, unknown>);
    const levels = new Set(argo.map((l) => l["level"]));
    const keys = new Set(argo.flatMap((l) => Object.keys(l)));
    const ours = lineOf("json", (l) =>
      l
        .child({ applicationset: { Namespace: "argo1", Name: "guestbook" } })
        .info({ application: "gb-dev", "app-namespace": "argo1", project: "default" }, "created Application"),
    );
    const line = JSON.parse(ours) as Record<string, unknown>;
    expect({ level: levels.has(line["level"]), missing: Object.keys(line).filter((k) => !keys.has(k)) }).toEqual({
      level: true,
      missing: [],
    });
  });
});

/** Reads a logrus text line back (values quoted by Go's rules; keys may hold spaces, as `worker count`). */
function parseText(line: string): { time: string; level: string; msg: string; fields: Record<string, unknown> } {
  const pairs: [string, string][] = [];
  const re = /(?:^| )([^=]+)=("(?:[^"\\]|\\.)*"|[^ ]*)/gy;
  for (let m = re.exec(line); m !== null; m = re.exec(line))
    pairs.push([m[1]!, m[2]!.startsWith('"') ? (JSON.parse(m[2]!) as string) : m[2]!]);
  const own = new Map(pairs.filter(([k]) => k === "time" || k === "level" || k === "msg"));
  const fields = Object.fromEntries(pairs.filter(([k]) => k !== "time" && k !== "level" && k !== "msg"));
  return { time: own.get("time") ?? "", level: own.get("level") ?? "", msg: own.get("msg") ?? "", fields };
}
