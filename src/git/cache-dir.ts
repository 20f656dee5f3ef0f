/** Where the bare cache repositories live, and the key that names them. */
import { createHmac, randomBytes } from "node:crypto";
import { link, mkdir, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";

/** The cache directory's name under the system's temporary directory. */
export const GIT_CACHE_DIR_NAME = "appset-git-cache";

/**
 * The cache directory of the Git readers: `configured` (`--git-cache-dir`) when it is set, else
 * `<tmp>/appset-git-cache`, `tmp` being the system's temporary directory (`os.tmpdir()`). Every
 * process given the same directory shares its repositories, safely (see `lock.ts`).
 */
export function gitCacheDir(configured: string, tmp: string): string {
  return configured.trim() === "" ? join(tmp, GIT_CACHE_DIR_NAME) : configured;
}

/** The file in the cache directory that holds the key naming its repositories. */
export const CACHE_KEY_FILE = "cache-key";

/**
 * The secret key that names the cache repositories (an HMAC of their URL), made once per cache
 * directory and shared by every process using it: a name that cannot be computed from outside, so
 * knowing a repository's URL does not tell where its objects are on disk. The first process writes
 * a fresh random key to a temporary file and links it into place (atomic: a second process either
 * sees no key and links its own, failing with EEXIST, or reads the first one's whole).
 */
export async function cacheKey(dir: string): Promise<Buffer> {
  const file = join(dir, CACHE_KEY_FILE);
  const read = async (): Promise<Buffer | undefined> => {
    const text = await readFile(file, "utf8").catch((err: NodeJS.ErrnoException) => {
      if (err.code === "ENOENT") return undefined;
      throw err;
    });
    if (text === undefined) return undefined;
    if (!/^[0-9a-f]{64}$/.test(text)) throw new Error(`the Git cache key ${file} is malformed; remove it to make a new one`);
    return Buffer.from(text, "hex");
  };
  const found = await read();
  if (found !== undefined) return found;
  await mkdir(dir, { recursive: true });
  const temp = join(dir, `${CACHE_KEY_FILE}.${randomBytes(8).toString("hex")}`);
  await writeFile(temp, randomBytes(32).toString("hex"), { mode: 0o600 });
  try {
    await link(temp, file).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== "EEXIST") throw err;
    });
  } finally {
    await rm(temp, { force: true });
  }
  return (await read())!;
}

/** The folder name of a repository's cache: a keyed hash of its URL. */
export function cacheFolderName(key: Buffer, repoURL: string): string {
  return createHmac("sha256", key).update(repoURL).digest("hex").slice(0, 32);
}
