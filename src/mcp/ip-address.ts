import { isIP } from 'node:net';

/**
 * The IPv4 address inside an IPv4-mapped IPv6 address (`::ffff:127.0.0.1`, `::ffff:7f00:1`),
 * or the address unchanged. A mapped address reaches the IPv4 host, so policies must judge
 * it as that host.
 */
export function toIpv4IfMapped(address: string): string {
  if (isIP(address) !== 6) return address;
  const hextets = expandIpv6(address);
  if (hextets === undefined) return address;
  const mapped = hextets.slice(0, 5).every((hextet) => hextet === 0) && hextets[5] === 0xffff;
  if (!mapped) return address;
  const high = hextets[6] ?? 0;
  const low = hextets[7] ?? 0;
  return [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.');
}

// --- Internal helpers ---

/** Eight 16-bit groups of an IPv6 address, a trailing dotted quad folded into the last two. */
function expandIpv6(address: string): number[] | undefined {
  let text = address.split('%')[0] ?? address;
  const dottedQuad = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dottedQuad) {
    const [a, b, c, d] = dottedQuad.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dottedQuad.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const parse = (part: string) =>
    part === '' ? [] : part.split(':').map((group) => Number.parseInt(group, 16));
  const headGroups = parse(head);
  const tailGroups = tail === undefined ? [] : parse(tail);
  const missing = 8 - headGroups.length - tailGroups.length;
  if (missing < 0 || (tail === undefined && missing !== 0)) return undefined;
  return [...headGroups, ...new Array<number>(missing).fill(0), ...tailGroups];
}
