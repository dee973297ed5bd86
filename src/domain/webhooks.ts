import ipaddr from 'ipaddr.js';
import { isIP } from 'node:net';
import { invalid, label, type FieldError, type Wording } from './refusals.js';

/**
 * Rules of a webhook endpoint (the contract: UpdateWebhookEndpoint; docs/decisions.md,
 * "Reference values") beyond what its schema states. EventTypes' rules (how many, how long,
 * which characters) and their messages are the schema's alone (docs/decisions.md, "Rules the
 * contract states"): Ajv applies them to every request and import item before any of this runs.
 */

/** Repeated event types are kept once, the first occurrence keeping its place; names are compared as sent. */
export function uniqueEventTypes(eventTypes: readonly string[]): string[] {
  return [...new Set(eventTypes)];
}

/**
 * An absolute http(s) URL with a host, without credentials (they would leak in logs) and
 * with a port from 1 to 65535 (WHATWG URL takes `:0`, which names no service).
 */
export function checkUrlShape(url: string): FieldError[] {
  const refuse = (message: Wording) => [invalid('InvalidUrl', 'Url', message)];
  const badPort = (name: string) => `${name} must have a port from 1 to 65535.`;
  const notAbsolute = (name: string) => `${name} must be an absolute http or https URL.`;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    // A port above 65535 makes the whole URL invalid; name the actual mistake.
    const port = /^https?:\/\/[^/?#]*:(\d+)(?:[/?#]|$)/i.exec(url)?.[1];
    return refuse(port !== undefined && Number(port) > 65535 ? badPort : notAbsolute);
  }
  // `http:host` parses too; a webhook target must be written out in full.
  if (!/^https?:\/\//i.test(url) || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')) {
    return refuse(notAbsolute);
  }
  if (parsed.hostname === '') return refuse((name) => `${name} must name a host.`);
  if (parsed.username !== '' || parsed.password !== '') return refuse((name) => `${name} must not contain credentials.`);
  if (parsed.port === '0') return refuse(badPort);
  return [];
}

// ---- The address policy: the one place that says which addresses may be called ----

type IP = ipaddr.IPv4 | ipaddr.IPv6;

const cidr = (text: string) => ipaddr.parseCIDR(text);

/**
 * What ipaddr.js 2.x lacks. Its IPv4 ranges already name every IANA special-purpose block
 * (RFC 6890) a webhook could hit: 0/8, 10/8, 100.64/10, 127/8, 169.254/16, 172.16/12,
 * 192.0.0/24, 192.0.2/24, 192.88.99/24, 192.168/16, 198.18/15, 198.51.100/24,
 * 203.0.113/24, 224/4, 240/4, 255.255.255.255. For IPv6 it calls every address outside
 * its named ranges "unicast", unallocated space included, and so the deprecated
 * IPv4-compatible form `::a.b.c.d` (RFC 4291 §2.5.5.1; `::7f00:1` is 127.0.0.1 in it).
 * IANA allocates global unicast only from 2000::/3 (RFC 4291 §2.4, IANA IPv6 address
 * space), so an IPv6 address outside it is refused; IPv4-compatible is not unwrapped.
 */
const IPV6_GLOBAL_UNICAST = cidr('2000::/3');

/** RFC 6052 well-known NAT64 prefix: the IPv4 address is the last 32 bits. */
const NAT64_WELL_KNOWN = cidr('64:ff9b::/96');

const ipv4 = (high: number, low: number) => new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);

/**
 * The IPv4 address an IPv6 form carries to the network: IPv4-mapped (`::ffff:a.b.c.d`),
 * NAT64 64:ff9b::/96 (RFC 6052) and 6to4 2002:AABB:CCDD::/48 (RFC 3056). Refused outright
 * rather than unwrapped, as ipaddr.js names them non-unicast: local-use NAT64
 * 64:ff9b:1::/48 (RFC 8215; where the IPv4 sits depends on the operator's prefix length),
 * IPv4-translated ::ffff:0:a.b.c.d (RFC 6145), and Teredo 2001::/32 (RFC 4380), whose
 * client IPv4 is obfuscated and reached through whichever relay the network picks, next
 * to a server IPv4: no webhook receiver has a reason to live on a Teredo address.
 */
function embeddedIPv4(address: ipaddr.IPv6): ipaddr.IPv4 | undefined {
  if (address.isIPv4MappedAddress()) return address.toIPv4Address();
  if (address.match(NAT64_WELL_KNOWN)) return ipv4(address.parts[6], address.parts[7]);
  if (address.range() === '6to4') return ipv4(address.parts[1], address.parts[2]);
  return undefined;
}

/**
 * Only what node:net itself takes for an IP literal is parsed: canonical dotted-quad IPv4
 * (not `0x7f.1`, `127.1` or octal, which ipaddr.js would read) and IPv6. IPv6 goes through
 * WHATWG URL's hex-only serialization first, because ipaddr.js reads `::a.b.c.d` as
 * `::ffff:a.b.c.d` where the standard means `::` followed by 32 bits. A zone id (`%eth0`)
 * ties an address to a local interface and is refused.
 */
function parseLiteral(address: string): IP | undefined {
  const family = isIP(address);
  if (family === 0 || address.includes('%')) return undefined;
  try {
    return ipaddr.parse(family === 6 ? new URL(`http://[${address}]/`).hostname.slice(1, -1) : address);
  } catch {
    return undefined;
  }
}

/**
 * True only for a public unicast address: the one policy for saving an endpoint (literal
 * hosts) and for delivering to it (every resolved address, at connect time). Any string
 * may be passed; what is not an IP literal is not public.
 */
export function isPublicAddress(address: string): boolean {
  let parsed = parseLiteral(address);
  if (!parsed) return false;
  if (parsed instanceof ipaddr.IPv6) {
    const inner = embeddedIPv4(parsed);
    if (inner) parsed = inner;
    else if (!parsed.match(IPV6_GLOBAL_UNICAST)) return false;
  }
  return parsed.range() === 'unicast';
}

/** Names that mean "this machine" (RFC 6761 §6.3) or a cloud metadata service, whatever DNS says. */
export function isLocalHostName(host: string): boolean {
  const name = host.toLowerCase().replace(/\.+$/, '');
  return name === 'localhost' || name.endsWith('.localhost') || name === 'metadata.google.internal';
}

export const UNSAFE_URL_MESSAGE = `${label('Url')} must not point to a private, loopback, link-local or other non-public address.`;

/**
 * Save-time check (UnsafeUrl) of a URL that passed checkUrlShape: a literal IP must be
 * public (isPublicAddress) and a localhost name is refused. Host names are not resolved:
 * DNS can be down now or re-pointed later, so the sender checks every resolved address
 * when it connects. `allowPrivateTargets` (config.WEBHOOK_ALLOW_PRIVATE_TARGETS) lifts
 * this check only, never the shape rules.
 */
export function checkUrlSafety(url: string, options: { allowPrivateTargets: boolean }): FieldError[] {
  if (options.allowPrivateTargets) return [];
  const host = new URL(url).hostname.replace(/^\[(.*)\]$/, '$1');
  const literal = isIP(host) !== 0;
  const safe = literal ? isPublicAddress(host) : !isLocalHostName(host);
  return safe ? [] : [invalid('UnsafeUrl', 'Url', UNSAFE_URL_MESSAGE)];
}
