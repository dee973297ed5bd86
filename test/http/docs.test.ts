import t from 'tap';
import { parse } from 'yaml';
import { contract } from '../../src/contract/contract.js';
import { toOpenApi30 } from '../../src/contract/openapi-3.0.js';
import { buildTestApp } from '../helper.js';

// The contract and its documentation are served (docs/contract.md).

t.test('GET /openapi.json serves the contract as JSON', async (t) => {
  const api = await buildTestApp(t);
  const res = await api.inject({ method: 'GET', url: '/openapi.json' });
  t.equal(res.statusCode, 200);
  t.match(res.headers['content-type'], /^application\/json/);
  const document = res.json();
  t.equal(document.openapi, '3.1.0');
  const operations = Object.values(document.paths as Record<string, Record<string, unknown>>).flatMap((item) => Object.keys(item));
  t.equal(operations.length, 16, "the API's thirteen operations and three extensions");
});

t.test('GET /openapi-3.0.json serves the contract as OpenAPI 3.0.3, for generators that do not read 3.1', async (t) => {
  const api = await buildTestApp(t);
  const res = await api.inject({ method: 'GET', url: '/openapi-3.0.json' });
  t.equal(res.statusCode, 200);
  t.match(res.headers['content-type'], /^application\/json/);
  const same = await api.inject({ method: 'GET', url: '/openapi.json' });
  t.strictSame(Object.keys(res.headers).sort(), Object.keys(same.headers).sort(), 'the headers of /openapi.json');
  t.equal(res.headers['cache-control'], same.headers['cache-control']);
  const document = res.json();
  t.equal(document.openapi, '3.0.3');
  t.strictSame(document, toOpenApi30(contract().document));
  t.notOk('webhooks' in document, "3.0 has no webhooks section: they are under x-webhooks");
  t.strictSame(Object.keys(document['x-webhooks']), Object.keys(same.json().webhooks));
});

t.test('GET /openapi.yaml serves the contract file as written', async (t) => {
  const api = await buildTestApp(t);
  const res = await api.inject({ method: 'GET', url: '/openapi.yaml' });
  t.equal(res.statusCode, 200);
  t.match(res.headers['content-type'], /^application\/yaml/);
  t.same(parse(res.body), (await api.inject({ method: 'GET', url: '/openapi.json' })).json());
});

t.test('the served contract names no fixed server: its server is the origin that served it', async (t) => {
  const api = await buildTestApp(t);
  const { servers } = (await api.inject({ method: 'GET', url: '/openapi.json' })).json() as { servers: Array<{ url: string }> };
  t.ok(servers.length > 0);
  for (const origin of ['http://127.0.0.1:49152', 'https://booking.example.org']) {
    for (const server of servers) t.equal(new URL(server.url, `${origin}/openapi.json`).origin, origin, server.url);
  }
});

t.test("the docs page keeps every answer's security policy but does not upgrade its requests to HTTPS", async (t) => {
  const api = await buildTestApp(t);
  const directives = (policy: unknown) => String(policy).split(';').map((d) => d.trim()).filter(Boolean);
  const everywhere = directives((await api.inject({ method: 'GET', url: '/openapi.json' })).headers['content-security-policy']);
  const page = directives((await api.inject({ method: 'GET', url: '/docs' })).headers['content-security-policy']);
  t.ok(everywhere.includes('upgrade-insecure-requests'), 'other answers keep it');
  t.same(page, everywhere.filter((d) => d !== 'upgrade-insecure-requests'));
  t.ok(page.includes("default-src 'self'"), "the page still reaches only its own origin");
});

t.test('GET /docs serves Swagger UI from the installed package, with no outside requests', async (t) => {
  const api = await buildTestApp(t);
  const page = await api.inject({ method: 'GET', url: '/docs' });
  t.equal(page.statusCode, 200);
  t.match(page.headers['content-type'], /^text\/html/);
  const sources = [...page.body.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]);
  t.ok(sources.length >= 3);
  for (const source of sources) {
    t.match(source, /^\//, `${source} is served by this server`);
    const asset = await api.inject({ method: 'GET', url: source });
    t.equal(asset.statusCode, 200, source);
  }
  const init = await api.inject({ method: 'GET', url: '/docs/init.js' });
  t.match(init.body, /url: '\/openapi\.json'/);
});

t.test('GET /health answers 200 while the store answers, 503 when it does not', async (t) => {
  const api = await buildTestApp(t);
  t.equal((await api.inject({ method: 'GET', url: '/health' })).statusCode, 200);
  await api.store.close();
  const down = await api.inject({ method: 'GET', url: '/health' });
  t.equal(down.statusCode, 503);
  t.equal(down.json().ResponseStatus.ErrorCode, 'ServiceUnavailable');
});
