import { mkdir, mkdtemp, readdir, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ChartCache, credentialsDigest, type ChartKey } from "./chart-cache.js";

const key = (version: string, credentials = credentialsDigest(null)): ChartKey => ({
  repoURL: "https://charts.example.com",
  chart: "web",
  version,
  credentials,
});

const dirs: string[] = [];
afterEach(async () => {
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

async function cache(): Promise<{ cache: ChartCache; root: string }> {
  const root = await mkdtemp(join(tmpdir(), "appset-chart-cache-test-"));
  dirs.push(root);
  return { cache: new ChartCache(root), root };
}

/** A pull that unpacks a chart named `web` and counts its calls. */
function counted(): { pulls: number; pull: (destination: string) => Promise<void> } {
  const out = {
    pulls: 0,
    pull: async (destination: string): Promise<void> => {
      out.pulls++;
      await mkdir(join(destination, "web"));
      await writeFile(join(destination, "web", "Chart.yaml"), "name: web\n");
    },
  };
  return out;
}

describe("the chart cache", () => {
  it("pulls a version once, and callers asking at once share the pull", async () => {
    const { cache: c } = await cache();
    const p = counted();
    const [a, b] = await Promise.all([c.chartDir(key("1.0.0"), p.pull), c.chartDir(key("1.0.0"), p.pull)]);
    expect(a).toBe(b);
    expect(await c.chartDir(key("1.0.0"), p.pull)).toBe(a);
    expect(p.pulls).toBe(1);
    expect(await readdir(a)).toEqual(["Chart.yaml"]);
  });

  it("keeps versions and credentials apart", async () => {
    const { cache: c } = await cache();
    const p = counted();
    const one = await c.chartDir(key("1.0.0"), p.pull);
    const two = await c.chartDir(key("2.0.0"), p.pull);
    const other = await c.chartDir(key("1.0.0", credentialsDigest({ username: "u" })), p.pull);
    expect(new Set([one, two, other]).size).toBe(3);
    expect(p.pulls).toBe(3);
  });

  it("leaves nothing behind a failed pull, and pulls again next time", async () => {
    const { cache: c, root } = await cache();
    await expect(
      c.chartDir(key("1.0.0"), async (d) => {
        await writeFile(join(d, "partial"), "");
        throw new Error("network down");
      }),
    ).rejects.toThrow("network down");
    expect(await readdir(root)).toEqual([]);
    const p = counted();
    await c.chartDir(key("1.0.0"), p.pull);
    expect(p.pulls).toBe(1);
  });

  it("fails when a pull leaves other than one chart directory, as Argo CD does", async () => {
    const { cache: c } = await cache();
    const two = async (d: string): Promise<void> => {
      await mkdir(join(d, "a"));
      await mkdir(join(d, "b"));
    };
    await expect(c.chartDir(key("1.0.0"), two)).rejects.toThrow(/^expected 1 file, found 2$/);
  });

  it("forgets a kept chart (a hard refresh)", async () => {
    const { cache: c } = await cache();
    const p = counted();
    await c.chartDir(key("1.0.0"), p.pull);
    await c.forget(key("1.0.0"));
    await c.chartDir(key("1.0.0"), p.pull);
    expect(p.pulls).toBe(2);
  });
});
