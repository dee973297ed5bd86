import t from 'tap';
import {
  UNSAFE_URL_MESSAGE,
  checkUrlSafety,
  checkUrlShape,
  isLocalHostName,
  isPublicAddress,
  uniqueEventTypes,
} from '../../src/domain/webhooks.js';
import { NON_PUBLIC_TARGETS } from '../fixtures/webhooks.js';

// The webhook endpoint rules, without HTTP. Nothing here resolves a name or connects.

const codes = (errors: Array<{ ErrorCode: string; FieldName: string }>) => errors.map((e) => `${e.ErrorCode} ${e.FieldName}`);

// EventTypes' limits and messages are the contract schema's, applied by Ajv: their refusals
// are asserted through HTTP (test/handlers/webhooks.test.ts) and the import (test/import/import.test.ts).

t.test('EventTypes are de-duplicated, first occurrence first, case-sensitive', async (t) => {
  t.strictSame(uniqueEventTypes(['b', 'a', 'b', 'a']), ['b', 'a']);
  t.strictSame(uniqueEventTypes(['A', 'a']), ['A', 'a']);
});

t.test('Url must be an absolute http(s) URL with a host and without credentials', async (t) => {
  for (const ok of ['https://example.org/hooks', 'HTTP://EXAMPLE.ORG', 'http://203.0.113.1:8080/x?y=1#z', 'https://[2001:db8::1]/']) {
    t.strictSame(checkUrlShape(ok), [], ok);
  }
  for (const bad of ['ftp://example.org/', 'javascript:alert(1)', 'http:example.org', '//example.org/x', '/relative', 'https://', 'nonsense', 'file:///etc/passwd']) {
    t.strictSame(codes(checkUrlShape(bad)), ['InvalidUrl Url'], bad);
  }
  t.equal(checkUrlShape('https://user:pw@example.org/')[0].Message, "'Url' must not contain credentials.");
  t.equal(checkUrlShape('https://user@example.org/').length, 1, 'a user name alone is a credential too');
});

t.test('Url port: 1 to 65535', async (t) => {
  const badPort = [{ ErrorCode: 'InvalidUrl', FieldName: 'Url', Message: "'Url' must have a port from 1 to 65535." }];
  for (const bad of ['http://example.org:0/', 'https://93.184.215.14:00/x', 'http://[2606:4700::1111]:0', 'http://example.org:65536/', 'http://example.org:99999999999/']) {
    t.strictSame(checkUrlShape(bad), badPort, bad);
  }
  for (const ok of ['http://example.org:1/', 'https://example.org:65535/', 'https://example.org:443/']) t.strictSame(checkUrlShape(ok), [], ok);
});

t.test('isPublicAddress refuses every non-public address, also inside IPv6 forms', async (t) => {
  for (const { address, why } of NON_PUBLIC_TARGETS) t.notOk(isPublicAddress(address), `${address} (${why})`);
  const more = [
    '127.255.255.254', '10.255.255.255', '172.16.0.0', '172.31.255.255', '192.168.0.1', '169.254.0.1', '100.127.255.255',
    '192.0.2.1', '198.51.100.1', '203.0.113.10', '198.19.255.255', '240.0.0.1', '239.255.255.255', '192.88.99.1',
    '::', 'fc00::1', 'fdff:ffff::1', 'fe80::1', 'febf::1', 'ff0e::1', '100::1', '2001:db8::1', '3fff::1',
    '::ffff:10.0.0.1', '::ffff:a9fe:a9fe', '::ffff:0.0.0.0', '64:ff9b::10.0.0.1', '64:ff9b::7f00:1', '2002:7f00:1::',
    '2002:c0a8:101::1',
    // Refused outright whatever IPv4 they carry (here the public 93.184.215.14): local-use
    // NAT64, Teredo (client stored as the complement a247:28f1) and IPv4-translated.
    '64:ff9b:1::5db8:d70e', '2001::1', '2001:0:4136:e378:8000:63bf:a247:28f1', '::ffff:0:5db8:d70e',
    // IPv4-compatible (deprecated), even around a public IPv4; ipaddr.js alone would read
    // `::93.184.215.14` as IPv4-mapped.
    '::5db8:d70e', '::93.184.215.14', '::127.0.0.1',
    // outside 2000::/3: not allocated as global unicast
    '4000::1', 'e000::1', '1::1',
  ];
  for (const address of more) t.notOk(isPublicAddress(address), address);
});

t.test('isPublicAddress accepts public unicast addresses, also NAT64, 6to4 and IPv4-mapped around them', async (t) => {
  const publicAddresses = [
    '93.184.215.14', '8.8.8.8', '1.1.1.1', '11.0.0.0', '172.15.255.255', '172.32.0.0', '192.167.255.255', '192.169.0.0',
    '169.253.255.255', '169.255.0.0', '100.63.255.255', '100.128.0.0', '223.255.255.255',
    '2606:4700::1111', '2001:4860:4860::8888', '2a00:1450:4001::1',
    '::ffff:93.184.215.14', '::ffff:5db8:d70e', '64:ff9b::5db8:d70e', '64:ff9b::93.184.215.14', '2002:5db8:d70e::1',
  ];
  for (const address of publicAddresses) t.ok(isPublicAddress(address), address);
});

t.test('isPublicAddress is safe for any string: only canonical literals are parsed', async (t) => {
  const notLiterals = [
    '', 'example.org', 'localhost', '0x7f.1', '127.1', '2130706433', '0177.0.0.1', '010.0.0.1', '093.184.215.14', '93.184.215.14.',
    ' 93.184.215.14', '93.184.215.14\n', '[2606:4700::1111]', '2606:4700::1111%eth0', 'fe80::1%1', '::ffff:0x5d.1.2.3',
    '1.2.3.4/32', '2606:4700::1111/128', '256.1.1.1',
  ];
  for (const text of notLiterals) t.notOk(isPublicAddress(text), JSON.stringify(text));
});

t.test('localhost names and the metadata name are refused whatever DNS says', async (t) => {
  for (const name of ['localhost', 'LOCALHOST', 'localhost.', 'api.localhost', 'metadata.google.internal', 'Metadata.Google.Internal.']) {
    t.ok(isLocalHostName(name), name);
  }
  for (const name of ['example.org', 'localhost.example.org', 'notlocalhost', 'google.internal']) t.notOk(isLocalHostName(name), name);
});

const unsafeUrl = [{ ErrorCode: 'UnsafeUrl', FieldName: 'Url', Message: UNSAFE_URL_MESSAGE }];
const strict = { allowPrivateTargets: false };

t.test('checkUrlSafety: literal hosts by the policy, localhost names refused, no DNS', async (t) => {
  for (const { url } of NON_PUBLIC_TARGETS) t.strictSame(checkUrlSafety(url, strict), unsafeUrl, url);
  // WHATWG URL turns these into 127.0.0.1 before the policy sees them.
  for (const url of ['http://0x7f.1/', 'http://2130706433/', 'http://127.1/', 'http://127.0.0.1./', 'http://localhost:3000/', 'http://foo.localhost/']) {
    t.strictSame(checkUrlSafety(url, strict), unsafeUrl, url);
  }
  for (const url of ['https://93.184.215.14/', 'https://[2606:4700::1111]:8443/x', 'https://hooks.example/x', 'https://no-such-host.invalid/']) {
    t.strictSame(checkUrlSafety(url, strict), [], url);
  }
  t.equal(UNSAFE_URL_MESSAGE, "'Url' must not point to a private, loopback, link-local or other non-public address.");
});

t.test('checkUrlSafety answers synchronously: there is no lookup to wait for', async (t) => {
  const result: unknown = checkUrlSafety('https://no-such-host.invalid/', strict);
  t.ok(Array.isArray(result), 'an array, not a promise');
});

t.test('WEBHOOK_ALLOW_PRIVATE_TARGETS lifts the address check (the shape rules stay: see the HTTP tests)', async (t) => {
  for (const url of ['http://127.0.0.1/', 'http://localhost/', 'http://[::1]:8080/', 'https://internal.example.org/']) {
    t.strictSame(checkUrlSafety(url, { allowPrivateTargets: true }), [], url);
  }
});
