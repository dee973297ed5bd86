import t from 'tap';
import { JSV_MAX_DEPTH, JsvParseError, parseJsv, toJsv } from '../../src/contract/jsv.js';

t.test('an object is written as {Key:Value} in insertion order', async (t) => {
  t.equal(toJsv({ B: 1, A: 'x', C: 2.5 }), '{B:1,A:x,C:2.5}');
});

t.test('null and undefined members are omitted', async (t) => {
  t.equal(toJsv({ A: null, B: 1, C: undefined }), '{B:1}');
  t.equal(toJsv({ A: null }), '{}');
});

t.test('lists are written as [a,b] and nest inside objects', async (t) => {
  t.equal(toJsv([1, 2, 3]), '[1,2,3]');
  t.equal(toJsv([]), '[]');
  t.equal(
    toJsv({ Id: 1, Ids: [1, 2], Customer: { Name: 'Ann', Tags: ['a', 'b'] }, Rows: [{ A: 1 }, { A: 2 }] }),
    '{Id:1,Ids:[1,2],Customer:{Name:Ann,Tags:[a,b]},Rows:[{A:1},{A:2}]}',
  );
});

t.test('numbers as JavaScript writes them, booleans as true/false, dates as ISO 8601', async (t) => {
  t.equal(toJsv({ I: -3, D: 0.1, E: 1e21, T: true, F: false }), '{I:-3,D:0.1,E:1e+21,T:true,F:false}');
  t.equal(toJsv({ At: new Date('2024-05-01T08:30:00Z') }), '{At:2024-05-01T08:30:00.000Z}');
});

t.test('a string is bare unless it holds " : , { } [ ] or a line break', async (t) => {
  t.equal(toJsv('Hello World!'), 'Hello World!');
  t.equal(toJsv('  padded  '), '  padded  ', 'whitespace is significant, not quoted');
  t.equal(toJsv('Åsa 日本 😀'), 'Åsa 日本 😀');
  for (const [raw, written] of [
    ['Me, Junior', '"Me, Junior"'],
    ['10:30', '"10:30"'],
    ['{x}', '"{x}"'],
    ['a}', '"a}"'],
    ['[x]', '"[x]"'],
    ['a]', '"a]"'],
    ['one\ntwo', '"one\ntwo"'],
    ['one\rtwo', '"one\rtwo"'],
  ]) {
    t.equal(toJsv(raw), written, JSON.stringify(raw));
  }
});

t.test('a quote inside a quoted string is doubled', async (t) => {
  t.equal(toJsv({ Size: '2" x 1"' }), '{Size:"2"" x 1"""}');
  t.equal(toJsv(['"q"']), '["""q"""]');
});

t.test('an empty string is written as "" so that it is not read as null', async (t) => {
  t.equal(toJsv({ A: '' }), '{A:""}');
  t.strictSame(parseJsv('{A:""}'), { A: '' });
});

t.test('a circular structure is refused', async (t) => {
  const o: Record<string, unknown> = { A: 1 };
  o.Self = o;
  t.throws(() => toJsv(o), TypeError);
});

t.test('parseJsv reads nested objects and lists with every scalar as a string', async (t) => {
  t.strictSame(parseJsv('{Id:1,Ids:[1,2],Customer:{Name:Ann,Vip:true},Rows:[{A:1},{A:2}]}'), {
    Id: '1',
    Ids: ['1', '2'],
    Customer: { Name: 'Ann', Vip: 'true' },
    Rows: [{ A: '1' }, { A: '2' }],
  });
  t.strictSame(parseJsv('[]'), []);
  t.strictSame(parseJsv('{}'), {});
});

t.test('parseJsv unescapes quoted strings and keeps bare whitespace', async (t) => {
  t.strictSame(parseJsv('{Size:"2"" x 1""",Name:"Me, Junior",At:2024-05-01T08:30:00Z,Pad: x }'), {
    Size: '2" x 1"',
    Name: 'Me, Junior',
    At: '2024-05-01T08:30:00Z',
    Pad: ' x ',
  });
  t.strictSame(parseJsv('{"quoted key":1}'), { 'quoted key': '1' });
});

t.test('an empty member is omitted and an empty list item is null', async (t) => {
  t.strictSame(parseJsv('{A:,B:1}'), { B: '1' });
  t.strictSame(parseJsv('[a,,b]'), ['a', null, 'b']);
});

t.test('text that is not a list, map or quoted string is returned as it is', async (t) => {
  t.equal(parseJsv('plain, text: here'), 'plain, text: here');
  t.equal(parseJsv(''), '');
  t.equal(parseJsv('"a""b"'), 'a"b');
});

t.test('toJsv then parseJsv gives back every string, unicode included', async (t) => {
  const strings = ['a,b', 'x"y', '{a:b}', '[1,2]', 'a:b', 'line\r\nbreak', ' lead', 'trail ', 'Åsa Öberg 日本 😀', '""'];
  t.strictSame(parseJsv(toJsv({ List: strings, Map: { K: strings[0] } })), { List: strings, Map: { K: 'a,b' } });
});

t.test('a key named __proto__ stays an ordinary member', async (t) => {
  const parsed = parseJsv('{__proto__:{Polluted:yes}}') as Record<string, unknown>;
  t.equal(Object.getPrototypeOf(parsed), Object.prototype);
  t.strictSame(Object.keys(parsed), ['__proto__']);
  t.equal(({} as Record<string, unknown>).Polluted, undefined);
});

t.test('malformed JSV gives a JsvParseError with a message', async (t) => {
  for (const text of ['{A:1', '[1,2', '{A:"x}', '"abc', '"a"b', '{A:1}x', '{:1}', '{A}', '{A:x"y}', '[a}', '{A:1]', '{A:1,}', '{A,B:1}', '{A:x\ny}']) {
    t.throws(() => parseJsv(text), JsvParseError, JSON.stringify(text));
  }
  try {
    parseJsv('{A:1');
  } catch (error) {
    t.match((error as Error).message, /Invalid JSV: .*end of input/);
  }
});

t.test(`nesting deeper than ${JSV_MAX_DEPTH} levels is refused`, async (t) => {
  const nested = (n: number) => '['.repeat(n) + ']'.repeat(n);
  t.equal(JSON.stringify(parseJsv(nested(JSV_MAX_DEPTH))), nested(JSV_MAX_DEPTH));
  t.throws(() => parseJsv(nested(JSV_MAX_DEPTH + 1)), JsvParseError);
  t.throws(() => parseJsv('{A:'.repeat(100_000)), JsvParseError);
});

t.test('1 MB inputs are read or refused in linear time', async (t) => {
  const mb = 1 << 20;
  const started = Date.now();
  for (const text of ['['.repeat(mb), '"' + 'a'.repeat(mb), '"' + '""'.repeat(mb / 2), '{A:' + 'x'.repeat(mb), '[' + 'a,'.repeat(mb / 2)]) {
    t.throws(() => parseJsv(text), JsvParseError);
  }
  const list = parseJsv('[' + Array.from({ length: mb / 8 }, (_, i) => `"v,${i}"`).join(',') + ']') as string[];
  t.equal(list.length, mb / 8);
  t.ok(Date.now() - started < 3000, 'took under 3 s');
});

t.test('random input never throws anything but JsvParseError', async (t) => {
  const alphabet = '{}[],:"" ab\n';
  let seed = 42;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  let other = 0;
  for (let n = 0; n < 5000; n++) {
    let text = random() < 0.5 ? '{' : '[';
    const length = Math.floor(random() * 20);
    for (let i = 0; i < length; i++) text += alphabet[Math.floor(random() * alphabet.length)];
    try {
      parseJsv(text);
    } catch (error) {
      if (!(error instanceof JsvParseError)) other++;
    }
  }
  t.equal(other, 0);
});
