// `npm run build`: the shipped program, dist/cli/main.js, bundled from src/cli/main.ts by esbuild
// (docs/controller.md#memory-at-start). One file per command and per feature loaded on first use
// (esbuild splits at every dynamic import) instead of one module per source file: Node keeps a
// record, a source text and a compiled top level for every module it loads, and the controller
// loaded about 680 of them at start. Type checking stays with `npm run typecheck` (tsc).
//
// The packages listed in EXTERNAL stay in node_modules and load as they always did: they are taken
// on first use through `createRequire` (a bundler cannot follow that), or they find files of their
// own at run time (pino's transport worker), or only a feature some installations use loads them.
// Everything else the program imports is bundled.
//
//   node scripts/build.ts [outdir]     (default dist/cli; the whole of dist/ is replaced)
import { build, type Metafile } from "esbuild";
import { rmSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");

/** Packages left out of the bundle (see above). */
export const EXTERNAL = [
  "undici",
  "pino",
  "@kubernetes/client-node",
  "@aws-sdk/*",
  "@smithy/*",
  "fengari",
  "tar",
  "yaml",
  "re2js",
  "http-proxy-agent",
  "https-proxy-agent",
  "socks-proxy-agent",
  "proper-lockfile",
];

/**
 * Bundles the program into `outdir` (the entry is `main.js` there) and returns esbuild's metafile:
 * which source files went into which output file.
 */
export async function bundle(outdir: string): Promise<Metafile> {
  const result = await build({
    absWorkingDir: ROOT,
    entryPoints: { main: "src/cli/main.ts" },
    outdir,
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "node",
    target: "node22",
    external: EXTERNAL,
    // Bundled CommonJS packages call `require` for Node's modules and the external packages.
    banner: {
      js: 'import { createRequire as __appsetCreateRequire } from "node:module";\nconst require = __appsetCreateRequire(import.meta.url);',
    },
    sourcemap: "linked",
    sourcesContent: false,
    metafile: true,
    logLevel: "warning",
  });
  return result.metafile;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const outdir = resolve(process.argv[2] ?? join(ROOT, "dist", "cli"));
  if (process.argv[2] === undefined) rmSync(join(ROOT, "dist"), { recursive: true, force: true });
  await bundle(outdir);
}
