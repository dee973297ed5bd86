import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import type { FieldError } from '../http/errors.js';

/**
 * Rules of a webhook endpoint (service document: UpdateWebhookEndpoint; product-decisions
 * §4 and §6). The contract's schema checks the same shapes for JSON bodies; these checks
 * also hold for CSV bodies and for whatever reaches the handler another way.
 */

export const EVENT_TYPES_REQUIRED = 'At least one event type is required.';

const fieldError = (ErrorCode: string, FieldName: string, Message: string): FieldError => ({
  ErrorCode,
  FieldName,
  Message,
});

/** Trimmed, de-duplicated (first occurrence keeps its place); at least one, none blank. */
export function normalizeEventTypes(eventTypes: readonly string[]): { eventTypes: string[]; errors: FieldError[] } {
  if (eventTypes.length === 0) return { eventTypes: [], errors: [fieldError('NotEmpty', 'EventTypes', EVENT_TYPES_REQUIRED)] };
  const errors: FieldError[] = [];
  const unique: string[] = [];
  eventTypes.forEach((raw, index) => {
    const name = raw.trim();
    if (name === '') errors.push(fieldError('NotEmpty', `EventTypes[${index}]`, `'Event Types' must not be empty.`));
    else if (!unique.includes(name)) unique.push(name);
  });
  return { eventTypes: unique, errors };
}

/** An absolute http(s) URL with a host and without credentials (they would leak in logs). */
export function checkUrlShape(url: string): FieldError[] {
  const refuse = (message: string) => [fieldError('InvalidUrl', 'Url', message)];
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return refuse(`'Url' must be an absolute http or https URL.`);
  }
  // `http:host` parses too; a webhook target must be written out in full.
  if (!/^https?:\/\//i.test(url) || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')) {
    return refuse(`'Url' must be an absolute http or https URL.`);
  }
  if (parsed.hostname === '') return refuse(`'Url' must name a host.`);
  if (parsed.username !== '' || parsed.password !== '') return refuse(`'Url' must not contain credentials.`);
  return [];
}

// ---- URL safety: a webhook must not make the server call into its own network ----

const blocked = new BlockList();
blocked.addSubnet('0.0.0.0', 8, 'ipv4'); // "this network", includes the unspecified 0.0.0.0
blocked.addSubnet('127.0.0.0', 8, 'ipv4'); // loopback
blocked.addSubnet('10.0.0.0', 8, 'ipv4'); // private
blocked.addSubnet('172.16.0.0', 12, 'ipv4'); // private
blocked.addSubnet('192.168.0.0', 16, 'ipv4'); // private
blocked.addSubnet('169.254.0.0', 16, 'ipv4'); // link-local, incl. the 169.254.169.254 metadata service
blocked.addAddress('::', 'ipv6'); // unspecified
blocked.addAddress('::1', 'ipv6'); // loopback
blocked.addSubnet('fc00::', 7, 'ipv6'); // unique local (private)
blocked.addSubnet('fe80::', 10, 'ipv6'); // link-local
// BlockList also matches IPv4-mapped IPv6 (::ffff:127.0.0.1) against the IPv4 rules.

/** True for a literal IP address the server must not call (loopback, private, link-local, unspecified). */
export function isUnsafeAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return false;
  return blocked.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

/** Names that always mean "this machine" or a cloud metadata service, whatever DNS says. */
export function isUnsafeHostName(host: string): boolean {
  const name = host.toLowerCase().replace(/\.$/, '');
  return name === 'localhost' || name.endsWith('.localhost') || name === 'metadata.google.internal';
}

export type Resolver = (host: string) => Promise<ReadonlyArray<{ address: string }>>;

/** The system resolver (what an HTTP client would use), every address of the name. */
export const systemResolver: Resolver = (host) => lookup(host, { all: true });

export const RESOLVE_TIMEOUT_MS = 2000;

export interface UrlSafetyOptions {
  /** config.WEBHOOK_ALLOW_PRIVATE_TARGETS: no check at all (and no DNS lookup) */
  allowPrivateTargets: boolean;
  resolve?: Resolver;
  timeoutMs?: number;
}

/** Resolves `host`, refusing after `timeoutMs`: a slow resolver must not hold the request. */
async function resolveWithin(resolve: Resolver, host: string, timeoutMs: number) {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('DNS lookup timed out')), timeoutMs);
  });
  try {
    return await Promise.race([resolve(host), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Refuses (UnsafeUrl) a target whose host is, or resolves to, an address of the server's
 * own network, and (UnresolvableHost) one whose name does not resolve. Expects a URL that
 * passed checkUrlShape. Resolving at save time does not stop a name from being re-pointed
 * later; whoever delivers events must check the address it connects to as well.
 */
export async function checkUrlSafety(url: string, options: UrlSafetyOptions): Promise<FieldError[]> {
  if (options.allowPrivateTargets) return [];
  const host = new URL(url).hostname.replace(/^\[(.*)\]$/, '$1');
  const unsafe = [fieldError('UnsafeUrl', 'Url', `'Url' must not point to a private, loopback or link-local address.`)];
  if (isIP(host) !== 0) return isUnsafeAddress(host) ? unsafe : [];
  if (isUnsafeHostName(host)) return unsafe;
  let addresses: ReadonlyArray<{ address: string }>;
  try {
    addresses = await resolveWithin(options.resolve ?? systemResolver, host, options.timeoutMs ?? RESOLVE_TIMEOUT_MS);
  } catch {
    return [fieldError('UnresolvableHost', 'Url', `The host '${host}' of 'Url' could not be resolved.`)];
  }
  if (addresses.length === 0) {
    return [fieldError('UnresolvableHost', 'Url', `The host '${host}' of 'Url' could not be resolved.`)];
  }
  return addresses.some((a) => isUnsafeAddress(a.address)) ? unsafe : [];
}
