/**
 * Where a registry may send the controller for a bearer token (its challenge's `realm`): the
 * repository's credentials go there, so a hostile registry must not point them at the pod's own
 * network. The rules of oras-go v2.7 (GHSA-xf85-363p-868w), which Argo CD v3.6.2's oras-go v2.6
 * predates: `https` always, `http` only when the registry itself is spoken to over HTTP, no other
 * scheme; unless the realm's host is the registry's own host, it must not be, or resolve to, a
 * loopback, link-local (instance metadata), unspecified or cloud metadata address. A name that
 * cannot be resolved is let through (it fails when dialled). Pure, except the injected lookup.
 */
import { BlockList, isIP } from "node:net";

/** Resolves a host name to its addresses. */
export type AddressLookup = (host: string) => Promise<readonly string[]>;

const BLOCKED: readonly (readonly [string, number, "ipv4" | "ipv6"])[] = [
  ["127.0.0.0", 8, "ipv4"],
  ["::1", 128, "ipv6"],
  ["169.254.0.0", 16, "ipv4"],
  ["fe80::", 10, "ipv6"],
  ["224.0.0.0", 24, "ipv4"],
  ["ff02::", 16, "ipv6"],
  ["0.0.0.0", 8, "ipv4"],
  ["::", 128, "ipv6"],
  ["100.100.100.200", 32, "ipv4"],
  ["fd00:ec2::254", 128, "ipv6"],
  ["fd00:ec2::23", 128, "ipv6"],
  ["fd20:ce::254", 128, "ipv6"],
  ["168.63.129.16", 32, "ipv4"],
];

const blocked = new BlockList();
for (const [net, prefix, type] of BLOCKED) blocked.addSubnet(net, prefix, type);

/** The IPv4 address inside an IPv4-mapped (`::ffff:a.b.c.d`) address, else the address. */
function unwrap(address: string): string {
  const dotted = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (dotted !== null) return dotted[1]!;
  const hex = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(address);
  if (hex === null) return address;
  const [hi, lo] = [parseInt(hex[1]!, 16), parseInt(hex[2]!, 16)];
  return [hi >> 8, hi & 255, lo >> 8, lo & 255].join(".");
}

function isBlocked(address: string): boolean {
  const plain = unwrap(address.replace(/%.*$/, ""));
  const family = isIP(plain);
  return family !== 0 && blocked.check(plain, family === 4 ? "ipv4" : "ipv6");
}

/** Why a realm is refused, or undefined when the token may be asked for there. */
export async function realmRefusal(realm: string, registry: URL, lookup: AddressLookup): Promise<string | undefined> {
  let url;
  try {
    url = new URL(realm);
  } catch {
    return `failed to parse bearer realm ${JSON.stringify(realm)}`;
  }
  if (url.protocol === "http:" && registry.protocol === "https:")
    return `bearer realm ${JSON.stringify(realm)} uses http but registry was contacted over https`;
  if (url.protocol !== "http:" && url.protocol !== "https:")
    return `bearer realm ${JSON.stringify(realm)} uses unsupported scheme ${JSON.stringify(url.protocol.slice(0, -1))}`;
  const host = url.hostname.replace(/^\[|\]$/g, "");
  if (host.toLowerCase() === registry.hostname.replace(/^\[|\]$/g, "").toLowerCase()) return undefined;
  if (isIP(host) !== 0)
    return isBlocked(host)
      ? `bearer realm host ${JSON.stringify(host)} is ${unwrap(host)}, a loopback, link-local or metadata address`
      : undefined;
  const addresses = await lookup(host).catch(() => []);
  const hit = addresses.find(isBlocked);
  return hit === undefined
    ? undefined
    : `bearer realm host ${JSON.stringify(host)} resolves to ${unwrap(hit)}, a loopback, link-local or metadata address`;
}
