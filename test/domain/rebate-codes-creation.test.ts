import t from 'tap';
import { appendComment, differenceComment, differingDetails } from '../../src/domain/rebate-code-customer.js';
import { rebateCodeFromArticle, type ArticleFacts } from '../../src/domain/rebate-code-from-article.js';
import { generateSign, SIGN_ALPHABET, SignExhaustedError, withUniqueSign } from '../../src/domain/rebate-code-sign.js';

// CreateArticleRebateCode's rules without HTTP: sign generation, article mapping, buyer comments.

t.test('the sign alphabet has no ambiguous characters', async (t) => {
  for (const c of '0O1IL') t.notOk(SIGN_ALPHABET.includes(c), c);
  t.equal(new Set(SIGN_ALPHABET).size, SIGN_ALPHABET.length, 'no repeats');
  t.equal(SIGN_ALPHABET.length, 31);
});

t.test('a generated sign is XXXX-XXXX of the alphabet, and signs differ', async (t) => {
  const signs = Array.from({ length: 500 }, () => generateSign());
  for (const sign of signs) t.match(sign, /^[A-HJKMNP-Z2-9]{4}-[A-HJKMNP-Z2-9]{4}$/);
  t.equal(new Set(signs).size, signs.length);
  t.equal(generateSign(() => 0), 'AAAA-AAAA', 'each character comes from the random source');
  t.equal(generateSign((n) => n - 1), '9999-9999');
});

t.test('a sign the insert skipped as taken is replaced by a fresh one', async (t) => {
  const taken = new Set(['AAAA-AAAA', 'BBBB-BBBB']);
  const drawn = ['AAAA-AAAA', 'BBBB-BBBB', 'CCCC-CCCC'];
  const tried: string[] = [];
  const result = await withUniqueSign(
    async (sign) => {
      tried.push(sign);
      return taken.has(sign) ? undefined : `stored ${sign}`;
    },
    () => drawn.shift()!,
  );
  t.equal(result, 'stored CCCC-CCCC');
  t.same(tried, ['AAAA-AAAA', 'BBBB-BBBB', 'CCCC-CCCC']);
});

t.test('errors pass through; endless clashes stop after the attempts', async (t) => {
  const other = new Error('disk full');
  await t.rejects(withUniqueSign(async () => { throw other; }), other);
  let calls = 0;
  await t.rejects(
    withUniqueSign(async () => { calls++; return undefined; }, () => 'SAME-SIGN', 3),
    SignExhaustedError,
  );
  t.equal(calls, 3);
});

const now = new Date('2026-11-21T10:00:00.000Z');
const article = (over: Partial<ArticleFacts>): ArticleFacts => ({ id: 9, articleTypeId: 5, active: true, price: 500, amount: null, validDays: 365, ...over });

t.test('gift and value cards take their value from Price, punch tickets from Amount', async (t) => {
  t.same(rebateCodeFromArticle(article({}), now).values, {
    typeId: 5, value: 500, remainingAmount: 500, remainingUsage: null,
    validFrom: '2026-11-21T10:00:00.000Z', validTo: '2027-11-21T10:00:00.000Z',
  });
  t.match(rebateCodeFromArticle(article({ articleTypeId: 4, price: 249.995 }), now).values, { typeId: 4, value: 250, remainingAmount: 250 });
  t.match(rebateCodeFromArticle(article({ articleTypeId: 4, price: 99.4 }), now).values, { value: 99, remainingAmount: 99.4 });
  t.same(rebateCodeFromArticle(article({ articleTypeId: 3, amount: 10, validDays: 1 }), now).values, {
    typeId: 3, value: 10, remainingAmount: null, remainingUsage: 10,
    validFrom: '2026-11-21T10:00:00.000Z', validTo: '2026-11-22T10:00:00.000Z',
  });
});

t.test('only PunchTicket, ValueCard and GiftCard articles become codes', async (t) => {
  for (const type of [1, 2, 6]) {
    t.match(rebateCodeFromArticle(article({ articleTypeId: type }), now).failure, { ErrorCode: 'InvalidArticleType', FieldName: 'ArticleId', Message: new RegExp(`is of type ${type}`) });
  }
});

t.test('an inactive article, or one without ValidDays, Price or Amount, is refused', async (t) => {
  t.match(rebateCodeFromArticle(article({ active: false }), now).failure, { ErrorCode: 'ArticleInactive', FieldName: 'ArticleId' });
  t.match(rebateCodeFromArticle(article({ validDays: null }), now).failure, { ErrorCode: 'InvalidArticle', Message: /no ValidDays/ });
  t.match(rebateCodeFromArticle(article({ validDays: 0 }), now).failure, { ErrorCode: 'InvalidArticle' });
  t.match(rebateCodeFromArticle(article({ price: 0 }), now).failure, { ErrorCode: 'InvalidArticle', Message: /no Price/ });
  t.match(rebateCodeFromArticle(article({ articleTypeId: 3, amount: null }), now).failure, { ErrorCode: 'InvalidArticle', Message: /no Amount/ });
});

t.test('only supplied details that differ from the profile are recorded', async (t) => {
  const profile = { Email: 'Anna@Example.com', Firstname: 'Ann', Lastname: 'Berg', Phone: null, InvoiceCity: 'Lund' };
  const supplied = { Email: 'anna@example.com', Firstname: 'Anna', Lastname: ' Berg ', Phone: '0701', InvoiceCity: '', InvoiceAddress1: 'Storgatan 1' };
  t.same(differingDetails(profile, supplied), ["Firstname 'Anna' (profile 'Ann')", "Phone '0701' (profile empty)", "InvoiceAddress1 'Storgatan 1' (profile empty)"]);
  t.same(differingDetails(profile, { Email: 'ANNA@example.com', Lastname: 'Berg' }), [], 'same data (e-mail in another case): nothing');
  t.same(differingDetails(profile, { Email: 'other@example.com' }), ["Email 'other@example.com' (profile 'Anna@Example.com')"]);
});

t.test('the comment is one dated line appended to the existing comments', async (t) => {
  const line = differenceComment(["Firstname 'Anna' (profile 'Ann')", "Phone '0701' (profile empty)"], now);
  t.equal(line, "2026-11-21: Firstname 'Anna' (profile 'Ann'); Phone '0701' (profile empty)");
  t.equal(differenceComment([], now), undefined);
  t.equal(appendComment(null, 'x'), 'x');
  t.equal(appendComment('old', 'x'), 'old\nx');
});
