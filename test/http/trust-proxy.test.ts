import { Writable } from 'node:stream';
import t from 'tap';
import { ConfigError, loadConfig } from '../../src/config.js';
import { assertContract, buildLoggedApp, buildTestApp } from '../helper.js';

// TRUST_PROXY (docs/decisions.md, "Request ids and proxies"): whose X-Forwarded-For names the
// client, whose address the rate limit counts and the logs show. Unset, nobody's.

/** Statuses of GET /categories from a peer, as each client behind it (its X-Forwarded-For, or none). */
async function statuses(api: Awaited<ReturnType<typeof buildTestApp>>, peer: string, forwardedFor: Array<string | undefined>) {
  const answers: number[] = [];
  for (const xff of forwardedFor) {
    const res = await api.inject({ method: 'GET', url: '/categories', remoteAddress: peer, headers: xff ? { 'x-forwarded-for': xff } : {} });
    answers.push(res.statusCode);
  }
  return answers;
}

t.test('trusted: clients behind the balancer have a count each', async (t) => {
  const api = await buildTestApp(t, { config: { RATE_LIMIT_MAX: 2, TRUST_PROXY: '127.0.0.1' }, as: null });
  t.same(await statuses(api, '127.0.0.1', ['203.0.113.1', '203.0.113.1', '203.0.113.1']), [200, 200, 429], 'the first client reaches its limit');
  t.same(await statuses(api, '127.0.0.1', ['203.0.113.2', '203.0.113.2']), [200, 200], 'the second still has its own');
  // A peer that is not the trusted balancer names nobody: its own address counts.
  t.same(await statuses(api, '198.51.100.7', ['203.0.113.3', '203.0.113.4', '203.0.113.5']), [200, 200, 429], 'an untrusted peer counts as itself');
});

t.test('unset: X-Forwarded-For is ignored, every client behind the balancer shares its count', async (t) => {
  const api = await buildTestApp(t, { config: { RATE_LIMIT_MAX: 2 }, as: null });
  t.same(await statuses(api, '127.0.0.1', ['203.0.113.1', '203.0.113.2', '203.0.113.3']), [200, 200, 429]);
});

t.test('a hop count trusts that many proxies, and true every one', async (t) => {
  const hops = await buildTestApp(t, { config: { RATE_LIMIT_MAX: 1, TRUST_PROXY: '1' }, as: null });
  // One proxy: the client is the right-most address it forwarded, whatever the client claimed before it.
  t.same(await statuses(hops, '10.0.0.5', ['198.51.100.1, 203.0.113.1', '198.51.100.2, 203.0.113.1', '203.0.113.2']), [200, 429, 200]);
  const all = await buildTestApp(t, { config: { RATE_LIMIT_MAX: 1, TRUST_PROXY: 'true' }, as: null });
  // Every proxy: the left-most address, which any client can write.
  t.same(await statuses(all, '10.0.0.5', ['198.51.100.1, 203.0.113.1', '198.51.100.2, 203.0.113.1', '198.51.100.1']), [200, 200, 429]);
});

t.test("the logs show the client's address", async (t) => {
  let text = '';
  const capture = new Writable({ write: (chunk, _encoding, done) => {
    text += chunk.toString();
    done();
  } });
  const { app } = await buildLoggedApp(t, capture, { LOG_LEVEL: 'info', TRUST_PROXY: '10.0.0.0/8' });
  const res = await app.inject({ method: 'GET', url: '/categories', remoteAddress: '10.1.2.3', headers: { 'x-forwarded-for': '203.0.113.9', 'x-request-id': 'via-proxy' } });
  assertContract('GET', '/categories', res);
  const incoming = text.split('\n').filter(Boolean).map((line) => JSON.parse(line)).find((line) => line.reqId === 'via-proxy' && line.req);
  t.equal(incoming?.req.remoteAddress, '203.0.113.9');
});

t.test('TRUST_PROXY is read as true, a hop count, or addresses and CIDRs; anything else stops start-up', async (t) => {
  const read = (value?: string) => loadConfig({}, value === undefined ? {} : { TRUST_PROXY: value }).TRUST_PROXY;
  t.equal(read(), false, 'unset: nobody');
  t.equal(read('false'), false);
  t.equal(read('true'), true);
  t.equal(read('2'), 2);
  t.equal(read('0'), false, 'no hops: nobody');
  t.same(read('10.0.0.1, 192.168.0.0/16,::1,fd00::/8,loopback'), ['10.0.0.1', '192.168.0.0/16', '::1', 'fd00::/8', 'loopback']);
  for (const bad of ['yes', '10.0.0.300', '10.0.0.0/33', '10.0.0.1,balancer.internal']) {
    let refused: unknown;
    try {
      read(bad);
    } catch (err) {
      refused = err;
    }
    t.type(refused, ConfigError, bad);
    t.match((refused as Error).message, /TRUST_PROXY/, `${bad}: names the variable`);
  }
});
