import { Webhook } from 'standardwebhooks';
import t from 'tap';
import { loadConfig } from '../../src/config.js';
import { standardSecret } from '../../src/store/migrations/0004_webhook_deliveries.js';
import { nextAttemptAt, parseRetrySchedule, retryAfterMs } from '../../src/domain/retry-schedule.js';
import { checkSecret, newWebhookSecret, secretKey } from '../../src/webhooks/secret.js';
import { signatureHeaders } from '../../src/webhooks/signing.js';

// Signing, secrets and the retry schedule as plain functions (docs/decisions.md, "Reference
// values" and "Events and deliveries").

t.test('generated secrets are whsec_ + standard base64 of 32 bytes, and the reference library verifies what they sign', async (t) => {
  for (let i = 0; i < 200; i++) {
    const secret = newWebhookSecret();
    t.equal(secretKey(secret)?.length, 32);
    const body = JSON.stringify({ type: 'tag.deactivated', timestamp: new Date().toISOString(), data: { Id: i, Name: 'åäö "x"' } });
    const headers = signatureHeaders(`msg_${i}`, new Date(), body, secretKey(secret)!);
    t.doesNotThrow(() => new Webhook(secret).verify(body, headers));
    if (t.passing() === false) break;
  }
});

t.test('a signature does not verify with another secret or another body', async (t) => {
  const secret = newWebhookSecret();
  const headers = signatureHeaders('msg_1', new Date(), '{"a":1}', secretKey(secret)!);
  t.throws(() => new Webhook(newWebhookSecret()).verify('{"a":1}', headers));
  t.throws(() => new Webhook(secret).verify('{"a":2}', headers));
});

t.test('secretKey reads only the standard spelling of 24 to 64 bytes', async (t) => {
  const of = (bytes: number) => `whsec_${Buffer.alloc(bytes, 7).toString('base64')}`;
  t.ok(secretKey(of(24)));
  t.ok(secretKey(of(64)));
  t.notOk(secretKey(of(23)), 'too short');
  t.notOk(secretKey(of(65)), 'too long');
  t.notOk(secretKey(of(32).replace(/=+$/, '')), 'padding is part of standard base64');
  t.notOk(secretKey(`whsec_${Buffer.alloc(32, 251).toString('base64url')}`), 'base64url');
  t.notOk(secretKey(Buffer.alloc(32, 7).toString('base64')), 'no prefix');
  t.strictSame(checkSecret(of(24)), [], 'a secret secretKey reads is accepted');
  t.strictSame(checkSecret(of(23)).map((e) => [e.ErrorCode, e.FieldName]), [['InvalidSecret', 'Secret']], 'and one it does not, refused');
});

t.test('migration 0004 respells old secrets, keeping their key bytes', async (t) => {
  const key = Buffer.alloc(32, 251); // base64url spells it with '-' and '_', which the libraries refuse
  const old = `whsec_${key.toString('base64url')}`;
  const respelled = standardSecret(old);
  t.equal(respelled, `whsec_${key.toString('base64')}`);
  t.strictSame(secretKey(respelled), key);
  t.equal(standardSecret(respelled), respelled, 'a standard secret stays as it is');
  const short = standardSecret('whsec_c2hvcnQ');
  t.not(short, 'whsec_c2hvcnQ');
  t.equal(secretKey(short)?.length, 32, 'a key too short to use is replaced by a new one');
  t.equal(secretKey(standardSecret('not base64 at all!'))?.length, 32);
});

t.test('WEBHOOK_RETRY_SCHEDULE: delays with a unit, one per retry', async (t) => {
  t.strictSame(parseRetrySchedule('5s,5m,30m,2h,5h,10h,10h'), [5000, 300000, 1800000, 7200000, 18000000, 36000000, 36000000]);
  t.strictSame(parseRetrySchedule('250ms, 1.5s'), [250, 1500]);
  t.match(parseRetrySchedule('5s,soon'), /"soon" is not a delay/);
  t.match(parseRetrySchedule(''), /is not a delay/);
  t.throws(() => loadConfig({ WEBHOOK_RETRY_SCHEDULE: '5x' }, {}), /WEBHOOK_RETRY_SCHEDULE: "5x" is not a delay/);
  const defaults = loadConfig({}, {});
  t.equal(defaults.WEBHOOK_RETRY_SCHEDULE, '5s,5m,30m,2h,5h,10h,10h', 'the default of docs/decisions.md');
  t.equal(defaults.WEBHOOK_TIMEOUT_MS, 15000, 'an attempt times out after 15 s by default');
  t.equal(defaults.WEBHOOK_DELIVERY, true, 'a node delivers unless told not to');
  t.equal(defaults.WEBHOOK_ALLOW_PRIVATE_TARGETS, false, 'private addresses are refused unless allowed');
});

t.test('the next attempt: the schedule, or a later Retry-After, and none once the schedule is spent', async (t) => {
  const now = new Date('2026-11-23T10:00:00.000Z');
  const schedule = [5000, 300000];
  t.equal(nextAttemptAt(schedule, 1, now)?.toISOString(), '2026-11-23T10:00:05.000Z');
  t.equal(nextAttemptAt(schedule, 2, now)?.toISOString(), '2026-11-23T10:05:00.000Z');
  t.equal(nextAttemptAt(schedule, 3, now), null);
  t.equal(nextAttemptAt(schedule, 1, now, 60000)?.toISOString(), '2026-11-23T10:01:00.000Z', 'a later Retry-After wins');
  t.equal(nextAttemptAt(schedule, 1, now, 1000)?.toISOString(), '2026-11-23T10:00:05.000Z', 'never earlier than the schedule');
  t.equal(retryAfterMs('120', now), 120000);
  t.equal(retryAfterMs('Mon, 23 Nov 2026 10:02:00 GMT', now), 120000);
  t.equal(retryAfterMs('999999999', now), 24 * 3600000, 'capped at a day');
  t.equal(retryAfterMs('soon', now), undefined);
  t.equal(retryAfterMs(undefined, now), undefined);
});
