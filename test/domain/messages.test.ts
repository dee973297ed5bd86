import t from 'tap';
import {
  characterCount,
  checkBodyLength,
  checkRequiredText,
  checkSender,
  checkServices,
  checkTemplate,
  isEmailAddress,
  normalizeSender,
} from '../../src/domain/messages.js';

// The message template rules, without HTTP or a store.

const email = { id: 1, maxCharacters: 5, sendMethodId: 1 };
const sms = { id: 2, maxCharacters: 5, sendMethodId: 2 };
const codes = (errors: Array<{ ErrorCode: string; FieldName: string }>) => errors.map((e) => `${e.ErrorCode} ${e.FieldName}`);

t.test('Body at most MaxCharacters: the limit itself is fine, one more is refused', async (t) => {
  t.strictSame(checkBodyLength('12345', email), []);
  t.strictSame(checkBodyLength('', email), []);
  t.strictSame(checkBodyLength('123456', email), [
    {
      ErrorCode: 'Length',
      FieldName: 'Body',
      Message: "The length of 'Body' must be 5 characters or fewer. You entered 6 characters.",
    },
  ]);
});

t.test('characters are counted as code points (an emoji is one character)', async (t) => {
  t.equal(characterCount('a😀b'), 3);
  t.strictSame(checkBodyLength('😀😀😀😀😀', email), []);
  t.equal(checkBodyLength('😀😀😀😀😀😀', email).length, 1);
});

t.test('Sender cannot be set for SMS types', async (t) => {
  t.strictSame(codes(checkSender('a@b.example', sms)), ['Empty Sender']);
  t.strictSame(checkSender(undefined, sms), []);
});

t.test('Sender of an e-mail type must be an e-mail address', async (t) => {
  t.strictSame(checkSender('info@salon.example', email), []);
  t.strictSame(checkSender(undefined, email), []);
  t.strictSame(checkSender('salon.example', email), [
    { ErrorCode: 'Email', FieldName: 'Sender', Message: "'Sender' is not a valid email address." },
  ]);
  for (const bad of ['@x', 'x@', 'a@b@c', 'a b@c', '']) t.notOk(isEmailAddress(bad), bad);
  for (const good of ['a@b', 'first.last+tag@sub.example.org']) t.ok(isEmailAddress(good), good);
});

t.test('a blank Sender means no sender; a Sender is trimmed', async (t) => {
  t.equal(normalizeSender(undefined), undefined);
  t.equal(normalizeSender(''), undefined);
  t.equal(normalizeSender('   '), undefined);
  t.equal(normalizeSender(' a@b.example '), 'a@b.example');
});

t.test('Name, Title and Body of whitespace only are empty', async (t) => {
  t.strictSame(checkRequiredText({ Name: 'n', Title: 't', Body: 'b' }), []);
  t.strictSame(checkRequiredText({ Name: ' ', Title: '\t\n', Body: 'b' }), [
    { ErrorCode: 'NotEmpty', FieldName: 'Name', Message: "'Name' must not be empty." },
    { ErrorCode: 'NotEmpty', FieldName: 'Title', Message: "'Title' must not be empty." },
  ]);
});

t.test('Services: null or empty means all; duplicates collapse; foreign ones are named by index', async (t) => {
  const owned = new Set([1, 2, 3]);
  t.strictSame(checkServices(null, owned), { serviceIds: [], errors: [] });
  t.strictSame(checkServices(undefined, owned), { serviceIds: [], errors: [] });
  t.strictSame(checkServices([], owned), { serviceIds: [], errors: [] });
  t.strictSame(checkServices([3, 1, 3, 1], owned), { serviceIds: [3, 1], errors: [] });
  const foreign = checkServices([1, 9, 2, 9], owned);
  t.strictSame(foreign.serviceIds, [1, 2]);
  t.strictSame(foreign.errors, [
    { ErrorCode: 'NotFound', FieldName: 'Services[1]', Message: 'Service 9 does not exist in the company.' },
    { ErrorCode: 'NotFound', FieldName: 'Services[3]', Message: 'Service 9 does not exist in the company.' },
  ]);
});

t.test('an unknown message type is refused; its type-dependent rules are then not applied', async (t) => {
  const input = { TypeId: 7, Name: 'n', Title: 't', Body: 'far longer than five', Sender: 'x' };
  t.strictSame(codes(checkTemplate(input, undefined, new Set()).errors), ['NotFound TypeId']);
  t.strictSame(codes(checkTemplate(input, sms, new Set()).errors), ['Length Body', 'Empty Sender']);
});

t.test('a valid template answers its normalized sender and services', async (t) => {
  const result = checkTemplate({ TypeId: 1, Name: 'n', Title: 't', Body: 'hi', Sender: ' a@b ', Services: [2, 2] }, email, new Set([2]));
  t.strictSame(result, { serviceIds: [2], sender: 'a@b', errors: [] });
});
