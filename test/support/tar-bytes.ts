/**
 * Tar archives built byte by byte for tests (ustar headers), so a test can write entries no
 * well-behaved packer would: `../` names, links that leave the root, paths under links. Pure.
 */
import { gzipSync } from "node:zlib";

/** One entry: a file (`body`), a directory (`dir`), a symlink (`link`) or a hard link (`hardlink`). */
export type TarEntry =
  | { readonly name: string; readonly body: string | Buffer }
  | { readonly name: string; readonly dir: true }
  | { readonly name: string; readonly link: string }
  | { readonly name: string; readonly hardlink: string };

function octal(n: number, width: number): string {
  return n.toString(8).padStart(width - 1, "0") + "\0";
}

function header(name: string, size: number, type: string, linkname = ""): Buffer {
  const h = Buffer.alloc(512);
  h.write(name, 0, 100, "utf8");
  h.write(octal(type === "5" ? 0o755 : 0o644, 8), 100);
  h.write(octal(0, 8), 108);
  h.write(octal(0, 8), 116);
  h.write(octal(size, 12), 124);
  h.write(octal(0, 12), 136);
  h.write("        ", 148);
  h.write(type, 156);
  h.write(linkname, 157, 100, "utf8");
  h.write("ustar\0" + "00", 257);
  let sum = 0;
  for (const b of h) sum += b;
  h.write(octal(sum, 7) + " ", 148);
  return h;
}

/** The archive of `entries`, in order. */
export function tarBytes(entries: readonly TarEntry[]): Buffer {
  const parts: Buffer[] = [];
  for (const e of entries) {
    if ("body" in e) {
      const body = Buffer.from(e.body);
      parts.push(header(e.name, body.length, "0"), body, Buffer.alloc((512 - (body.length % 512)) % 512));
    } else if ("dir" in e) parts.push(header(e.name, 0, "5"));
    else if ("link" in e) parts.push(header(e.name, 0, "2", e.link));
    else parts.push(header(e.name, 0, "1", e.hardlink));
  }
  parts.push(Buffer.alloc(1024));
  return Buffer.concat(parts);
}

/** The archive gzipped. */
export function tgzBytes(entries: readonly TarEntry[]): Buffer {
  return gzipSync(tarBytes(entries));
}
