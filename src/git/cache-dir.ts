/** Where the bare cache repositories live when the configuration names no directory. */
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
