import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SignJWT, exportJWK, generateKeyPair } from 'jose';
import t from 'tap';
import { COMPANY_A, baseData } from '../fixtures.js';
import { TEST_SECRET, WRITE, buildTestApp } from '../helper.js';

// Identity-provider tokens (RS256/ES256) verified through a JWKS URL (docs/decisions.md,
// "Credentials, roles and companies"; docs/configuration.md).

t.test('tokens of an identity provider are verified through its JWKS', async (t) => {
  const rsa = await generateKeyPair('RS256');
  const ec = await generateKeyPair('ES256');
  const keys = [
    { ...(await exportJWK(rsa.publicKey)), kid: 'rsa-1', alg: 'RS256', use: 'sig' },
    { ...(await exportJWK(ec.publicKey)), kid: 'ec-1', alg: 'ES256', use: 'sig' },
  ];
  const jwks = createServer((_req, res) => {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ keys }));
  });
  await new Promise<void>((resolve) => jwks.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => jwks.close(() => resolve())));
  const { port } = jwks.address() as AddressInfo;

  const api = await buildTestApp(t, {
    data: baseData,
    config: {
      AUTH_JWKS_URL: `http://127.0.0.1:${port}/.well-known/jwks.json`,
      AUTH_ISSUER: 'https://id.example/realms/booking',
      AUTH_AUDIENCE: 'booking-api',
      AUTH_ROLES_CLAIM: 'realm_access.roles',
    },
  });
  const sign = (key: Parameters<SignJWT['sign']>[0], alg: string, kid: string, issuer = 'https://id.example/realms/booking') =>
    new SignJWT({ company_id: COMPANY_A, realm_access: { roles: [WRITE] } })
      .setProtectedHeader({ alg, kid })
      .setIssuer(issuer)
      .setAudience('booking-api')
      .setExpirationTime('5m')
      .sign(key);

  t.equal((await api.call('DELETE', '/tags/10', { as: await sign(rsa.privateKey, 'RS256', 'rsa-1') })).statusCode, 200, 'RS256');
  t.equal((await api.call('DELETE', '/tags/11', { as: await sign(ec.privateKey, 'ES256', 'ec-1') })).statusCode, 200, 'ES256');
  t.equal((await api.call('DELETE', '/tags/10', { as: await sign(rsa.privateKey, 'RS256', 'rsa-1', 'https://evil.example') })).statusCode, 401, 'wrong issuer');
  const other = await generateKeyPair('RS256');
  t.equal((await api.call('DELETE', '/tags/10', { as: await sign(other.privateKey, 'RS256', 'rsa-1') })).statusCode, 401, 'a key not in the JWKS');
  const hs = await new SignJWT({ company_id: COMPANY_A, realm_access: { roles: [WRITE] } })
    .setProtectedHeader({ alg: 'HS256' })
    .setIssuer('https://id.example/realms/booking')
    .setAudience('booking-api')
    .setExpirationTime('5m')
    .sign(new TextEncoder().encode(TEST_SECRET));
  t.equal((await api.call('DELETE', '/tags/10', { as: hs })).statusCode, 401, 'HS256 is not accepted once a JWKS is configured');
});
