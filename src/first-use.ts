/**
 * A package loaded on the first call instead of at start, for libraries that only some
 * installations use (docs/controller.md#memory-at-start). The package is taken through `require`,
 * synchronously, so call sites stay synchronous.
 */
import { createRequire } from "node:module";

const load = createRequire(import.meta.url);

/** A getter of package `specifier`, which loads it on its first call. */
export function onFirstUse<T>(specifier: string): () => T {
  let loaded: T | undefined;
  return () => (loaded ??= load(specifier) as T);
}
