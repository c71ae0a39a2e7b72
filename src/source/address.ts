/**
 * SSRF guard: which resolved addresses a source download may connect to. Loopback, private,
 * link-local, unspecified, carrier-grade NAT, multicast and reserved ranges are refused by
 * default (checked on the resolved address, on every redirect), unless the host is allowed.
 */
import { isIP } from 'node:net';

function v4(s: string): bigint {
  return s.split('.').reduce((acc, part) => (acc << 8n) | BigInt(Number(part)), 0n);
}

function v6(s: string): bigint {
  let text = s.toLowerCase();
  const zone = text.indexOf('%');
  if (zone >= 0) text = text.slice(0, zone);
  // An embedded IPv4 tail (::ffff:1.2.3.4).
  const tail = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (tail) {
    const n = v4(tail[1]!);
    text = `${text.slice(0, -tail[1]!.length)}${(n >> 16n).toString(16)}:${(n & 0xffffn).toString(16)}`;
  }
  const [head, rest] = text.split('::') as [string, string | undefined];
  const h = head ? head.split(':') : [];
  const r = rest !== undefined && rest !== '' ? rest.split(':') : [];
  const groups = rest === undefined ? h : [...h, ...Array(8 - h.length - r.length).fill('0'), ...r];
  return groups.reduce((acc, g) => (acc << 16n) | BigInt(parseInt(g || '0', 16)), 0n);
}

const V4_BLOCKED: [string, number, string][] = [
  ['0.0.0.0', 8, 'unspecified ("this network")'],
  ['10.0.0.0', 8, 'private'],
  ['100.64.0.0', 10, 'carrier-grade NAT'],
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.0.0', 16, 'link-local (cloud metadata lives here)'],
  ['172.16.0.0', 12, 'private'],
  ['192.0.0.0', 24, 'IETF protocol assignments'],
  ['192.0.2.0', 24, 'documentation'],
  ['192.168.0.0', 16, 'private'],
  ['198.18.0.0', 15, 'benchmarking'],
  ['198.51.100.0', 24, 'documentation'],
  ['203.0.113.0', 24, 'documentation'],
  ['224.0.0.0', 4, 'multicast'],
  ['240.0.0.0', 4, 'reserved'],
];
const V6_BLOCKED: [string, number, string][] = [
  ['::', 128, 'unspecified'],
  ['::1', 128, 'loopback'],
  ['fc00::', 7, 'unique local (private)'],
  ['fe80::', 10, 'link-local'],
  ['ff00::', 8, 'multicast'],
  ['2001:db8::', 32, 'documentation'],
  ['64:ff9b:1::', 48, 'local-use NAT64'],
  ['100::', 64, 'discard-only'],
  ['2001:2::', 48, 'benchmarking'],
  ['2001:10::', 28, 'ORCHID (not routable)'],
  ['2001:20::', 28, 'ORCHIDv2 (not routable)'],
  ['3fff::', 20, 'documentation'],
  ['5f00::', 16, 'segment routing (SRv6)'],
];

interface Blocked {
  net: bigint;
  prefix: number;
  why: string;
}
const V4_RANGES: Blocked[] = V4_BLOCKED.map(([a, prefix, why]) => ({ net: v4(a), prefix, why }));
const V6_RANGES: Blocked[] = V6_BLOCKED.map(([a, prefix, why]) => ({ net: v6(a), prefix, why }));

function match(addr: bigint, ranges: Blocked[], bits: number): string | null {
  for (const { net, prefix, why } of ranges) {
    const shift = BigInt(bits - prefix);
    if (addr >> shift === net >> shift) return why;
  }
  return null;
}

function v4Text(n: bigint): string {
  return [24n, 16n, 8n, 0n].map((s) => String((n >> s) & 255n)).join('.');
}

const MASK32 = 0xffffffffn;

/**
 * The IPv4 addresses an IPv6 address carries and is delivered to, when it is one of the forms
 * that embed one: IPv4-mapped (::ffff:0:0/96), IPv4-compatible (::/96), IPv4-translated
 * (::ffff:0:0:0/96), NAT64 (64:ff9b::/96), 6to4 (2002::/16), Teredo (2001::/32, server and
 * client) and ISATAP interface identifiers (…:0:5efe:a.b.c.d, …:200:5efe:a.b.c.d).
 */
export function embeddedIpv4(a: bigint): { form: string; ipv4: string[] } | null {
  const top96 = a >> 32n;
  const low = a & MASK32;
  if (top96 === 0xffffn) return { form: 'IPv4-mapped', ipv4: [v4Text(low)] };
  if (top96 === 0n && a > 1n) return { form: 'IPv4-compatible', ipv4: [v4Text(low)] };
  if (top96 === 0xffff0000n) return { form: 'IPv4-translated', ipv4: [v4Text(low)] };
  if (top96 === 0x64ff9b0000000000000000n) return { form: 'NAT64', ipv4: [v4Text(low)] };
  if (a >> 112n === 0x2002n) return { form: '6to4', ipv4: [v4Text((a >> 80n) & MASK32)] };
  if (a >> 96n === 0x20010000n) return { form: 'Teredo', ipv4: [v4Text((a >> 64n) & MASK32), v4Text(~low & MASK32)] };
  if ((top96 & 0xfdffffffn) === 0x5efen) return { form: 'ISATAP', ipv4: [v4Text(low)] };
  return null;
}

/** Why an address is refused, or null when it is a public address. */
export function blockedReason(address: string): string | null {
  const family = isIP(address);
  if (family === 4) {
    return match(v4(address), V4_RANGES, 32);
  }
  if (family === 6) {
    const a = v6(address);
    const blocked = match(a, V6_RANGES, 128);
    if (blocked) return blocked;
    // Addresses that carry an IPv4 address are delivered to it: judge the IPv4 inside.
    const embedded = embeddedIpv4(a);
    if (embedded) {
      for (const ipv4 of embedded.ipv4) {
        const why = blockedReason(ipv4);
        if (why) return embedded.form === 'IPv4-mapped' || embedded.form === 'IPv4-compatible' ? why : `${why} (${embedded.form} of ${ipv4})`;
      }
    }
    return null;
  }
  return 'not an IP address';
}
