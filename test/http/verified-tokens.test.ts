import { SignJWT } from 'jose';
import t from 'tap';
import { VerifiedTokens } from '../../src/auth/authenticate.js';
import type { Caller } from '../../src/domain/caller.js';
import { COMPANY_A, baseData } from '../fixtures.js';
import { TEST_SECRET, WRITE, buildTestApp, expectRefusal } from '../helper.js';

// Verified tokens are remembered so a signature is not checked again on every request;
// that must never let a token live past its exp, nor trust it for long.

const caller = (sub: string): Caller => ({ sub, companyId: COMPANY_A, roles: new Set([WRITE]) });

t.test('a remembered token is answered until its exp, then forgotten', async (t) => {
  let now = 1_000_000;
  const tokens = new VerifiedTokens(() => now);
  tokens.set('a', caller('a'), now + 60_000);
  t.equal(tokens.get('a')?.sub, 'a');
  t.equal(tokens.get('b'), undefined, 'any other text is not known');
  now += 59_999;
  t.equal(tokens.get('a')?.sub, 'a', 'just before exp');
  now += 1;
  t.equal(tokens.get('a'), undefined, 'at exp it is no longer valid');
  t.equal(tokens.size, 0, 'and it is dropped');
});

t.test('a long-lived token is remembered at most MAX_AGE_MS', async (t) => {
  let now = 1_000_000;
  const tokens = new VerifiedTokens(() => now);
  tokens.set('a', caller('a'), now + 24 * 3_600_000);
  now += VerifiedTokens.MAX_AGE_MS - 1;
  t.ok(tokens.get('a'));
  now += 1;
  t.equal(tokens.get('a'), undefined, 'verified again after MAX_AGE_MS');
});

t.test('at most MAX_ENTRIES are kept, the oldest going first', async (t) => {
  const tokens = new VerifiedTokens(() => 0);
  for (let i = 0; i <= VerifiedTokens.MAX_ENTRIES; i++) tokens.set(`t${i}`, caller(`t${i}`), 60_000);
  t.equal(tokens.size, VerifiedTokens.MAX_ENTRIES);
  t.equal(tokens.get('t0'), undefined, 'the oldest is gone');
  t.ok(tokens.get(`t${VerifiedTokens.MAX_ENTRIES}`), 'the newest is kept');
});

t.test('through the API: a token that worked is refused once it expires', async (t) => {
  const api = await buildTestApp(t, { data: baseData });
  // Long enough that two calls fit before it even on a loaded machine.
  const exp = Math.floor(Date.now() / 1000) + 5;
  const jwt = await new SignJWT({ company_id: COMPANY_A, roles: [WRITE] })
    .setProtectedHeader({ alg: 'HS256' })
    .setExpirationTime(exp)
    .sign(new TextEncoder().encode(TEST_SECRET));
  t.equal((await api.call('GET', '/billing/methods', { as: jwt })).statusCode, 200);
  t.equal((await api.call('GET', '/billing/methods', { as: jwt })).statusCode, 200, 'the remembered token');
  await new Promise((resolve) => setTimeout(resolve, exp * 1000 - Date.now() + 50));
  const late = await api.call('GET', '/billing/methods', { as: jwt });
  expectRefusal(t, late, { status: 401, code: 'Unauthorized', name: 'expired, although it was remembered' });
});

t.test('through the API: one changed character is verified afresh and refused', async (t) => {
  const api = await buildTestApp(t, { data: baseData });
  const jwt = await new SignJWT({ company_id: COMPANY_A, roles: [WRITE] })
    .setProtectedHeader({ alg: 'HS256' })
    .setExpirationTime('1h')
    .sign(new TextEncoder().encode(TEST_SECRET));
  t.equal((await api.call('GET', '/billing/methods', { as: jwt })).statusCode, 200);
  const last = jwt.at(-2) === 'A' ? 'B' : 'A';
  t.equal((await api.call('GET', '/billing/methods', { as: `${jwt.slice(0, -2)}${last}${jwt.at(-1)}` })).statusCode, 401);
});
