// The "address" every per-address limit counts. One IPv6 customer usually holds a whole /64 (often
// far more), so counting single IPv6 addresses would give an attacker 2^64 fresh budgets: an IPv6
// address counts by its /64, an IPv4 address (also written IPv4-mapped, ::ffff:a.b.c.d) by itself.

/** The limit key of an address: IPv4 as is, IPv6 as its /64 (`2001:db8:0:1::/64`). */
export function networkOf(ip: string | null | undefined): string {
  if (!ip) return 'unknown';
  const address = ip.trim().toLowerCase().replace(/%.*$/, ''); // a zone (fe80::1%eth0) is local detail
  if (!address.includes(':')) return address;
  const groups = expandIpv6(address);
  if (!groups) return address.slice(0, 64); // not an address: count it as the text it is
  if (groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff) {
    return [groups[6] >> 8, groups[6] & 255, groups[7] >> 8, groups[7] & 255].join('.');
  }
  return `${groups
    .slice(0, 4)
    .map((g) => g.toString(16))
    .join(':')}::/64`;
}

/** The eight 16-bit groups of an IPv6 address, or null when it is not one. */
function expandIpv6(address: string): number[] | null {
  const halves = address.split('::');
  if (halves.length > 2) return null;
  const parse = (part: string) => {
    if (part === '') return [];
    const pieces = part.split(':');
    const groups: number[] = [];
    for (const [i, piece] of pieces.entries()) {
      if (i === pieces.length - 1 && piece.includes('.')) {
        const octets = piece.split('.').map(Number);
        if (octets.length !== 4 || octets.some((o) => !Number.isInteger(o) || o < 0 || o > 255)) return null;
        groups.push((octets[0] << 8) | octets[1], (octets[2] << 8) | octets[3]);
      } else {
        if (!/^[0-9a-f]{1,4}$/.test(piece)) return null;
        groups.push(parseInt(piece, 16));
      }
    }
    return groups;
  };
  const head = parse(halves[0]);
  const tail = halves.length === 2 ? parse(halves[1]) : [];
  if (!head || !tail) return null;
  if (halves.length === 1) return head.length === 8 ? head : null;
  const missing = 8 - head.length - tail.length;
  if (missing < 1) return null;
  return [...head, ...Array<number>(missing).fill(0), ...tail];
}
