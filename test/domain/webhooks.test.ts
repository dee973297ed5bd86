import t from 'tap';
import {
  EVENT_TYPES_REQUIRED,
  RESOLVE_TIMEOUT_MS,
  checkUrlSafety,
  checkUrlShape,
  isUnsafeAddress,
  isUnsafeHostName,
  normalizeEventTypes,
  systemResolver,
  type Resolver,
} from '../../src/domain/webhooks.js';

// The webhook endpoint rules, without HTTP. Name resolution is injected, except for
// `localhost`, which the system resolves without outside DNS.

const codes = (errors: Array<{ ErrorCode: string; FieldName: string }>) => errors.map((e) => `${e.ErrorCode} ${e.FieldName}`);
const resolvingTo = (...addresses: string[]): Resolver => async () => addresses.map((address) => ({ address }));

t.test('EventTypes: at least one is required, with the exact message', async (t) => {
  t.strictSame(normalizeEventTypes([]), {
    eventTypes: [],
    errors: [{ ErrorCode: 'NotEmpty', FieldName: 'EventTypes', Message: 'At least one event type is required.' }],
  });
  t.equal(EVENT_TYPES_REQUIRED, 'At least one event type is required.');
});

t.test('EventTypes are trimmed and de-duplicated, first occurrence first', async (t) => {
  t.strictSame(normalizeEventTypes([' b', 'a ', 'b', 'a']), { eventTypes: ['b', 'a'], errors: [] });
  t.strictSame(normalizeEventTypes(['A', 'a']).eventTypes, ['A', 'a'], 'names are case-sensitive');
});

t.test('a blank event type is refused by its index', async (t) => {
  t.strictSame(codes(normalizeEventTypes(['a', ' ', '']).errors), ['NotEmpty EventTypes[1]', 'NotEmpty EventTypes[2]']);
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

t.test('unsafe literal addresses: loopback, private, link-local, unspecified', async (t) => {
  const unsafe = [
    '127.0.0.1', '127.255.255.254', '10.0.0.0', '10.255.255.255', '172.16.0.0', '172.31.255.255',
    '192.168.0.1', '192.168.255.255', '169.254.0.1', '169.254.169.254', '0.0.0.0',
    '::1', '::', 'fc00::1', 'fdff:ffff::1', 'fe80::1', 'febf::1', '::ffff:127.0.0.1', '::ffff:a9fe:a9fe',
  ];
  for (const address of unsafe) t.ok(isUnsafeAddress(address), address);
  const safe = [
    '8.8.8.8', '203.0.113.10', '11.0.0.0', '172.15.255.255', '172.32.0.0', '192.167.255.255', '192.169.0.0',
    '169.253.255.255', '169.255.0.0', '2001:db8::1', 'fbff::1', 'fec0::1', '::ffff:8.8.8.8', 'example.org',
  ];
  for (const address of safe) t.notOk(isUnsafeAddress(address), address);
});

t.test('unsafe host names: localhost, *.localhost, metadata.google.internal', async (t) => {
  for (const name of ['localhost', 'LOCALHOST', 'localhost.', 'api.localhost', 'metadata.google.internal', 'Metadata.Google.Internal.']) {
    t.ok(isUnsafeHostName(name), name);
  }
  for (const name of ['example.org', 'localhost.example.org', 'notlocalhost', 'google.internal']) t.notOk(isUnsafeHostName(name), name);
});

const unsafeUrl = { ErrorCode: 'UnsafeUrl', FieldName: 'Url', Message: "'Url' must not point to a private, loopback or link-local address." };

t.test('checkUrlSafety refuses literal unsafe hosts without resolving', async (t) => {
  const resolve: Resolver = async () => {
    t.fail('no lookup for a literal address');
    return [];
  };
  for (const url of ['http://127.0.0.1/', 'http://[::1]:8080/', 'http://169.254.169.254/latest', 'http://0x7f.1/', 'http://[::ffff:10.0.0.1]/']) {
    t.strictSame(await checkUrlSafety(url, { allowPrivateTargets: false, resolve }), [unsafeUrl], url);
  }
  t.strictSame(await checkUrlSafety('https://203.0.113.10/', { allowPrivateTargets: false, resolve }), []);
  t.strictSame(await checkUrlSafety('http://localhost:3000/', { allowPrivateTargets: false, resolve }), [unsafeUrl]);
});

t.test('checkUrlSafety refuses names that resolve to an unsafe address', async (t) => {
  const options = (resolve: Resolver) => ({ allowPrivateTargets: false, resolve });
  t.strictSame(await checkUrlSafety('https://hooks.example.org/', options(resolvingTo('203.0.113.5'))), []);
  t.strictSame(await checkUrlSafety('https://hooks.example.org/', options(resolvingTo('203.0.113.5', '10.0.0.7'))), [unsafeUrl], 'any one address');
  t.strictSame(await checkUrlSafety('https://hooks.example.org/', options(resolvingTo('fe80::2'))), [unsafeUrl]);
});

t.test('the system resolver: localhost resolves (locally) to loopback addresses only', async (t) => {
  const addresses = await systemResolver('localhost');
  t.ok(addresses.length > 0);
  t.ok(addresses.every((a) => isUnsafeAddress(a.address)), JSON.stringify(addresses));
  // A name outside the fixed list that resolves like localhost is refused by its addresses.
  const viaLocalhost: Resolver = () => systemResolver('localhost');
  t.strictSame(await checkUrlSafety('https://innocent.example.org/', { allowPrivateTargets: false, resolve: viaLocalhost }), [unsafeUrl]);
});

t.test('a lookup failure, an empty answer or a timeout is UnresolvableHost', async (t) => {
  const failing: Resolver = async () => {
    throw Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' });
  };
  const hanging: Resolver = () => new Promise(() => {});
  for (const [name, resolve] of [['failure', failing], ['empty', resolvingTo()], ['timeout', hanging]] as const) {
    const errors = await checkUrlSafety('https://nowhere.example.org/x', { allowPrivateTargets: false, resolve, timeoutMs: 50 });
    t.strictSame(errors, [
      { ErrorCode: 'UnresolvableHost', FieldName: 'Url', Message: "The host 'nowhere.example.org' of 'Url' could not be resolved." },
    ], name);
  }
  t.equal(RESOLVE_TIMEOUT_MS, 2000, 'lookups are bounded by 2 s');
});

t.test('WEBHOOK_ALLOW_PRIVATE_TARGETS: nothing is refused and nothing is looked up', async (t) => {
  const resolve: Resolver = async () => {
    t.fail('no lookup when private targets are allowed');
    return [];
  };
  for (const url of ['http://127.0.0.1/', 'http://localhost/', 'https://internal.example.org/']) {
    t.strictSame(await checkUrlSafety(url, { allowPrivateTargets: true, resolve }), [], url);
  }
});
