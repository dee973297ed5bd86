import dns from 'node:dns';
import { syncBuiltinESMExports } from 'node:module';
import t, { type Test } from 'tap';
import { NON_PUBLIC_TARGETS, webhookData } from '../fixtures/webhooks.js';
import { badRequest, buildTestApp, expectRefused } from '../helper.js';
import { WH1, endpoint, storedEndpoint, valid } from './webhooks-requests.js';

// UpdateWebhookEndpoint's target policy through HTTP: a literal IP must be public unicast
// (also inside IPv4-mapped, NAT64, 6to4 and Teredo forms), localhost names are refused,
// and host names are not resolved when saving. Nothing here connects anywhere.

// A tripwire instead of DNS for this process: every lookup is recorded and fails, as on a
// machine without DNS. Each test below checks that none was made.
const lookups: string[] = [];
const tripwire = (api: object, name: string) => {
  (api as Record<string, unknown>)[name] = (host: string, ...rest: unknown[]) => {
    lookups.push(`${name} ${host}`);
    const error = Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    const callback = rest.find((arg) => typeof arg === 'function') as ((err: Error) => void) | undefined;
    if (callback) process.nextTick(callback, error);
    else return Promise.reject(error);
  };
};
for (const name of ['lookup', 'resolve', 'resolve4', 'resolve6', 'resolveAny']) {
  tripwire(dns, name);
  tripwire(dns.promises, name);
}
syncBuiltinESMExports();
const noLookups = (t: Test) => t.strictSame(lookups.splice(0), [], 'no DNS lookup');

const UNSAFE = "'Url' must not point to a private, loopback, link-local or other non-public address.";

t.test('the tripwire catches a lookup', async (t) => {
  const { lookup } = await import('node:dns/promises');
  await t.rejects(lookup('hooks.example'), { code: 'ENOTFOUND' });
  t.strictSame(lookups.splice(0), ['lookup hooks.example']);
});

t.test('a non-public literal target is refused (UnsafeUrl) and changes nothing', async (t) => {
  const api = await buildTestApp(t, { data: webhookData });
  const names = ['http://localhost/', 'http://localhost:3000/hooks', 'http://foo.localhost/', 'http://LOCALHOST./', 'http://metadata.google.internal/'];
  // WHATWG URL spells these as 127.0.0.1 before the policy sees them.
  const spelled = ['http://2130706433/', 'http://0x7f.1/', 'http://127.1/'];
  for (const url of [...NON_PUBLIC_TARGETS.map((target) => target.url), ...names, ...spelled]) {
    await t.test(url, async (t) => {
      const status = await expectRefused(t, api, 'PUT', WH1, { body: { ...valid, Url: url } }, badRequest(['UnsafeUrl', 'Url']));
      t.equal(status.Message, UNSAFE);
      t.equal(status.Errors[0].Message, UNSAFE);
      noLookups(t);
    });
  }
});

t.test('a public literal target is saved', async (t) => {
  const api = await buildTestApp(t, { data: webhookData });
  const targets = [
    'https://93.184.215.14/hooks', 'http://[2606:4700::1111]/in', 'https://[2606:4700::1111]:8443/in',
    'https://[::ffff:93.184.215.14]/', 'https://[64:ff9b::5db8:d70e]/', 'https://[2002:5db8:d70e::1]/',
  ];
  for (const url of targets) {
    const res = await api.call('PUT', WH1, { body: { ...valid, Url: url } });
    t.equal(res.statusCode, 200, url);
    t.equal(res.json().Url, url);
    t.equal((await storedEndpoint(api, 'wh-1')).url, url, 'stored');
  }
  noLookups(t);
});

t.test('a host name is saved without being resolved, even one that never resolves', async (t) => {
  const api = await buildTestApp(t, { data: webhookData });
  // `.example` and `.invalid` are reserved (RFC 2606): they resolve nowhere.
  for (const url of ['https://hooks.example/x', 'https://no-such-host.invalid/', 'https://internal.corp.example:8443/in']) {
    const res = await api.call('PUT', WH1, { body: { ...valid, Url: url } });
    t.equal(res.statusCode, 200, url);
    t.equal(res.json().Url, url);
  }
  noLookups(t);
});

t.test('the order: shape (400), then the endpoint (404), then the address (400)', async (t) => {
  const api = await buildTestApp(t, { data: webhookData });
  t.equal((await api.call('PUT', endpoint('nope'), { body: { ...valid, Url: 'http://127.0.0.1/' } })).statusCode, 404, 'an unknown endpoint first');
  const shape = await api.call('PUT', WH1, { body: { Url: 'http://127.0.0.1:0/', EventTypes: ['x'] } });
  t.equal(shape.json().ResponseStatus.ErrorCode, 'InvalidUrl', 'the port before the address');
  noLookups(t);
});

t.test('WEBHOOK_ALLOW_PRIVATE_TARGETS lets private and localhost targets through, not a bad shape', async (t) => {
  const api = await buildTestApp(t, { data: webhookData, config: { WEBHOOK_ALLOW_PRIVATE_TARGETS: true } });
  for (const url of ['http://127.0.0.1:8080/hooks', 'http://localhost/hooks', 'http://[::1]/', 'http://10.0.0.1/', 'https://hooks.example.test/in']) {
    const res = await api.call('PUT', WH1, { body: { ...valid, Url: url } });
    t.equal(res.statusCode, 200, url);
    t.equal(res.json().Url, url);
  }
  const status = await expectRefused(t, api, 'PUT', WH1, { body: { ...valid, Url: 'http://127.0.0.1:0/' } }, badRequest(['InvalidUrl', 'Url']));
  t.equal(status.Message, "'Url' must have a port from 1 to 65535.");
  await expectRefused(t, api, 'PUT', WH1, { body: { ...valid, Url: 'http://user:pw@127.0.0.1/' } }, badRequest(['InvalidUrl', 'Url']));
  noLookups(t);
});
