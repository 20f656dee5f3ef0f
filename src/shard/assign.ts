/**
 * Which replica owns which key: rendezvous (highest-random-weight) hashing. Every member gets a
 * weight for a key, and the member with the highest weight owns it. The rule needs no shared state
 * beyond the member list, and it moves as little as possible: when a member leaves only its keys
 * move (each to its runner-up), and when a member joins only the keys it now wins move (to it).
 *
 * The weight of (member, key) is a 64-bit FNV-1a hash of each string, combined by XOR and mixed by
 * MurmurHash3's 64-bit finaliser so that similar keys (UIDs differing in one character) spread
 * evenly. The hash is stable across processes, versions and platforms: it depends only on the
 * UTF-8 bytes of the two strings. Pure: no I/O, no clock.
 */

/** A 64-bit hash as two unsigned 32-bit halves. */
interface Hash64 {
  hi: number;
  lo: number;
}

const FNV_OFFSET: Hash64 = { hi: 0xcbf29ce4, lo: 0x84222325 };
/** The low bits of the FNV 64-bit prime 2^40 + 0x1b3. */
const FNV_PRIME_LOW = 0x1b3;
const TWO_32 = 0x1_0000_0000;

/** One FNV-1a step: xor in a byte, multiply by the prime modulo 2^64 (on 32-bit halves). */
function fnvStep(h: Hash64, byte: number): void {
  const lo = (h.lo ^ byte) >>> 0;
  // lo × 0x1b3 < 2^41 is exact in a double; its carry goes to the high half, as does lo × 2^40.
  const product = lo * FNV_PRIME_LOW;
  h.hi = (Math.imul(h.hi, FNV_PRIME_LOW) + (lo << 8) + Math.floor(product / TWO_32)) >>> 0;
  h.lo = product >>> 0;
}

/** 64-bit FNV-1a of the UTF-8 bytes of `text`, linear in its length. */
export function fnv1a64(text: string): bigint {
  const h = { ...FNV_OFFSET };
  for (const char of text) {
    const code = char.codePointAt(0) ?? 0;
    if (code < 0x80) fnvStep(h, code);
    else for (const byte of utf8(code)) fnvStep(h, byte);
  }
  return (BigInt(h.hi) << 32n) | BigInt(h.lo);
}

/** The UTF-8 bytes of one code point above U+007F. */
function utf8(code: number): number[] {
  if (code < 0x800) return [0xc0 | (code >> 6), 0x80 | (code & 0x3f)];
  if (code < 0x10000) return [0xe0 | (code >> 12), 0x80 | ((code >> 6) & 0x3f), 0x80 | (code & 0x3f)];
  return [0xf0 | (code >> 18), 0x80 | ((code >> 12) & 0x3f), 0x80 | ((code >> 6) & 0x3f), 0x80 | (code & 0x3f)];
}

const MASK_64 = (1n << 64n) - 1n;

/** MurmurHash3's fmix64: a bijection of 64-bit values in which every input bit affects every output bit. */
function fmix64(value: bigint): bigint {
  let k = value;
  k ^= k >> 33n;
  k = (k * 0xff51afd7ed558ccdn) & MASK_64;
  k ^= k >> 33n;
  k = (k * 0xc4ceb9fe1a85ec53n) & MASK_64;
  k ^= k >> 33n;
  return k;
}

/** The rendezvous weight of a member for a key, from their hashes. */
function weight(memberHash: bigint, keyHash: bigint): bigint {
  return fmix64(memberHash ^ keyHash);
}

/** A member with its hash, computed once per call. */
interface HashedMember {
  id: string;
  hash: bigint;
}

function hashMembers(members: Iterable<string>): HashedMember[] {
  return [...new Set(members)].map((id) => ({ id, hash: fnv1a64(id) }));
}

/** The highest-weight member for a key hash; ties (vanishingly rare) go to the smaller identity. */
function winner(keyHash: bigint, members: readonly HashedMember[]): string | undefined {
  let best: HashedMember | undefined;
  let bestWeight = -1n;
  for (const member of members) {
    const w = weight(member.hash, keyHash);
    if (w > bestWeight || (w === bestWeight && best !== undefined && member.id < best.id)) {
      best = member;
      bestWeight = w;
    }
  }
  return best?.id;
}

/**
 * The member that owns `key`, or undefined when there are no members. Depends only on the key and
 * the set of members (not their order, not duplicates).
 */
export function ownerOf(key: string, members: Iterable<string>): string | undefined {
  return winner(fnv1a64(key), hashMembers(members));
}

/**
 * The keys each member owns: every member appears (with an empty list when it owns nothing), keys
 * keep their input order. Empty when there are no members. Hashes each member and key once.
 */
export function assignment(keys: Iterable<string>, members: Iterable<string>): Map<string, string[]> {
  const hashed = hashMembers(members);
  const owned = new Map<string, string[]>(hashed.map((m) => [m.id, []]));
  if (hashed.length === 0) return owned;
  for (const key of keys) owned.get(winner(fnv1a64(key), hashed)!)!.push(key);
  return owned;
}
