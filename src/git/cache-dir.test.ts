import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { CACHE_KEY_FILE, cacheFolderName, cacheKey, gitCacheDir } from "./cache-dir.js";

describe("gitCacheDir", () => {
  it.each([
    // name; --git-cache-dir; the system's temporary directory; the directory used
    {
      name: "an empty setting means appset-git-cache in the temporary directory",
      configured: "",
      tmp: "/tmp",
      want: "/tmp/appset-git-cache",
    },
    { name: "a blank setting counts as empty", configured: "  ", tmp: "/var/tmp", want: "/var/tmp/appset-git-cache" },
    { name: "a configured directory is used as given", configured: "/var/cache/appset", tmp: "/tmp", want: "/var/cache/appset" },
  ])("$name", ({ configured, tmp, want }) => {
    expect(gitCacheDir(configured, tmp)).toBe(want);
  });
});

describe("cacheKey", () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });
  const fresh = (): string => {
    const d = mkdtempSync(join(tmpdir(), "appset-key-"));
    dirs.push(d);
    return join(d, "cache");
  };

  it("makes one private key per directory, and every caller at once gets that one", async () => {
    const dir = fresh();
    const keys = await Promise.all(Array.from({ length: 8 }, () => cacheKey(dir)));
    expect(new Set(keys.map((k) => k.toString("hex"))).size).toBe(1);
    expect(keys[0]).toHaveLength(32);
    expect(readdirSync(dir)).toEqual([CACHE_KEY_FILE]);
    expect(statSync(join(dir, CACHE_KEY_FILE)).mode & 0o777).toBe(0o600);
    expect((await cacheKey(dir)).equals(keys[0]!)).toBe(true);
  });

  it("names a repository differently under another directory's key, and never by a plain hash of its URL", async () => {
    const url = "https://git.example/team-b/private";
    const a = cacheFolderName(await cacheKey(fresh()), url);
    const b = cacheFolderName(await cacheKey(fresh()), url);
    expect(a).not.toBe(b);
    expect(a).not.toBe(createHash("sha256").update(url).digest("hex").slice(0, 32));
  });

  it("refuses a malformed key file with what to do", async () => {
    const dir = fresh();
    mkdirSync(dir);
    writeFileSync(join(dir, CACHE_KEY_FILE), "short");
    await expect(cacheKey(dir)).rejects.toThrow("is malformed; remove it to make a new one");
  });
});
