import t from 'tap';
import { coerceToSchema, type JsonSchema } from '../../src/contract/coercion.js';
import { CsvBodyError, contentDisposition, csvFilename, parseCsvBody, toCsv } from '../../src/http/csv.js';

t.test('a query envelope is written as its Results rows only', async (t) => {
  const envelope = { Offset: 0, Total: 2, Results: [{ Id: 1, Name: 'Hair' }, { Id: 2, Name: 'Nails' }] };
  t.equal(toCsv(envelope), 'Id,Name\r\n1,Hair\r\n2,Nails\r\n');
});

t.test('the header is the union of the rows field names in first-seen order', async (t) => {
  t.equal(toCsv({ Results: [{ Id: 1 }, { Name: 'x', Id: 2 }] }), 'Id,Name\r\n1,\r\n2,x\r\n');
});

t.test('an empty envelope with columns gives the header line alone', async (t) => {
  t.equal(toCsv({ Total: 0, Results: [] }, ['Id', 'Name', 'Active']), 'Id,Name,Active\r\n');
  t.equal(toCsv({ Total: 0, Results: [] }), '', 'without columns there is nothing to name');
});

t.test('columns order the cells and leave out fields the schema does not declare', async (t) => {
  t.equal(toCsv({ Results: [{ Name: 'A', Id: 1, Secret: 's' }] }, ['Id', 'Name']), 'Id,Name\r\n1,A\r\n');
});

t.test('any other object is a header row and one data row', async (t) => {
  t.equal(toCsv({ Id: 5, Name: 'Room', Active: true }), 'Id,Name,Active\r\n5,Room,true\r\n');
  t.equal(toCsv({ Id: 5, Name: 'Room' }, ['Name', 'Id']), 'Name,Id\r\nRoom,5\r\n');
});

t.test('null and undefined are empty cells', async (t) => {
  t.equal(toCsv({ A: null, B: 1, C: undefined, D: '' }), 'A,B,C,D\r\n,1,,\r\n');
});

t.test('numbers as JavaScript writes them, booleans as true/false, dates as ISO 8601', async (t) => {
  t.equal(
    toCsv({ I: -3, D: 99.5, E: 1e21, F: false, At: new Date('2024-05-01T08:30:00Z') }),
    'I,D,E,F,At\r\n-3,99.5,1e+21,false,2024-05-01T08:30:00.000Z\r\n',
  );
});

t.test('a nested object or list is one JSV cell, quoted because it starts with { or [', async (t) => {
  t.equal(
    toCsv({ Id: 1, Ids: [1, 2], Customer: { Name: 'Ann', Email: 'ann@example.com' } }),
    'Id,Ids,Customer\r\n1,"[1,2]","{Name:Ann,Email:ann@example.com}"\r\n',
  );
  t.equal(toCsv({ Tags: ['a,b', 'c'] }), 'Tags\r\n"[""a,b"",c]"\r\n', 'JSV quotes are doubled by CSV');
  t.equal(toCsv({ Tags: [] }), 'Tags\r\n"[]"\r\n');
});

t.test('a cell holding , " or a line break, or starting with [ or {, is quoted', async (t) => {
  const cases: Array<[string, string]> = [
    ['a,b', '"a,b"'],
    ['say "hi"', '"say ""hi"""'],
    ['one\ntwo', '"one\ntwo"'],
    ['one\r\ntwo', '"one\r\ntwo"'],
    ['[draft]', '"[draft]"'],
    ['{x}', '"{x}"'],
    ['x[y]', 'x[y]'],
    [' padded ', ' padded '],
    ['10:30', '10:30'],
  ];
  for (const [value, cell] of cases) t.equal(toCsv({ V: value }), `V\r\n${cell}\r\n`, JSON.stringify(value));
});

t.test('header names are quoted by the same rule', async (t) => {
  t.equal(toCsv({ 'a,b': 1 }), '"a,b"\r\n1\r\n');
});

t.test('the file is offered as <OperationId>.csv', async (t) => {
  t.equal(csvFilename('CategoryQuery'), 'CategoryQuery.csv');
  t.equal(contentDisposition('CategoryQuery'), 'attachment; filename="CategoryQuery.csv"');
  t.equal(csvFilename('bad"name\r\n'), 'bad_name__.csv');
});

t.test('parseCsvBody reads a header row and one data row as strings', async (t) => {
  t.strictSame(parseCsvBody('Id,Name,Active\r\n5,"Room, big",true\r\n'), { Id: '5', Name: 'Room, big', Active: 'true' });
  t.strictSame(parseCsvBody('Id,Name\n5,Room'), { Id: '5', Name: 'Room' }, 'LF rows, no final line break');
  t.strictSame(parseCsvBody('\uFEFFId,Name\r\n5,Room\r\n'), { Id: '5', Name: 'Room' }, 'UTF-8 BOM');
});

t.test('empty cells are omitted', async (t) => {
  t.strictSame(parseCsvBody('Id,Name,Note\r\n5,,\r\n'), { Id: '5' });
});

t.test('cells starting with [ or { are read as JSV, or as JSON', async (t) => {
  t.strictSame(parseCsvBody('Ids,Customer\r\n"[1,2]","{Name:Ann,Tags:[""a,b"",c]}"\r\n'), {
    Ids: ['1', '2'],
    Customer: { Name: 'Ann', Tags: ['a,b', 'c'] },
  });
  t.strictSame(parseCsvBody('Customer\r\n"{""Name"": ""Ann"", ""Ids"": [1, 2]}"\r\n'), { Customer: { Name: 'Ann', Ids: [1, 2] } });
  t.strictSame(parseCsvBody('Note\r\n[draft] see below\r\n'), { Note: '[draft] see below' }, 'neither: kept as text');
});

t.test('malformed bodies give a CsvBodyError with a clear message', async (t) => {
  const cases: Array<[string, RegExp]> = [
    ['', /header row and one data row/],
    ['Id,Name\r\n', /exactly one data row.*found 0/],
    ['Id,Name\r\n1,a\r\n2,b\r\n', /exactly one data row.*found 2/],
    ['Id,Name\r\n1,a,extra\r\n', /Invalid CSV body/],
    ['Id,Name\r\n1\r\n', /Invalid CSV body/],
    ['Id,Name\r\n1,"unterminated\r\n', /Invalid CSV body/],
    ['Id,,Name\r\n1,2,3\r\n', /empty column name/],
    ['Id,ID\r\n1,2\r\n', /'ID' appears twice/],
  ];
  for (const [text, message] of cases) {
    t.throws(() => parseCsvBody(text), CsvBodyError, JSON.stringify(text));
    t.throws(() => parseCsvBody(text), { message }, JSON.stringify(text));
  }
});

// No clock here (performance belongs to the bench): a parser that backtracked on these
// would run into the test's time-out instead of finishing.
t.test('1 MB bodies are read or refused without hanging', async (t) => {
  const mb = 1 << 20;
  t.throws(() => parseCsvBody('Note\r\n"' + 'x'.repeat(mb)), CsvBodyError, 'unterminated quote');
  t.throws(() => parseCsvBody('Id\r\n' + '1\r\n'.repeat(mb / 3)), CsvBodyError, 'many rows');
  t.throws(() => parseCsvBody('A,B\r\n' + ','.repeat(mb)), CsvBodyError, 'ragged');
  t.strictSame(parseCsvBody('Note\r\n' + 'é'.repeat(mb)), { Note: 'é'.repeat(mb) });
  t.strictSame(parseCsvBody('Deep\r\n' + '['.repeat(mb)), { Deep: '['.repeat(mb) }, 'too deep for JSV or JSON: kept as text');
  const deepJson = '['.repeat(mb / 4) + ']'.repeat(mb / 4);
  t.strictSame(parseCsvBody('Deep\r\n"' + deepJson + '"'), { Deep: deepJson }, 'valid but too deep JSON: kept as text');
});

const booking: JsonSchema = {
  type: 'object',
  properties: {
    Id: { type: 'integer' },
    Price: { type: 'number' },
    Active: { type: 'boolean' },
    Name: { type: 'string' },
    Label: { type: 'string' },
    Note: { type: ['string', 'null'] },
    Customer: {
      type: 'object',
      properties: { Id: { type: 'integer' }, Email: { type: 'string' }, Vip: { type: 'boolean' }, Discount: { type: 'number' } },
    },
    ResourceIds: { type: 'array', items: { type: 'integer' } },
    Tags: { type: 'array', items: { type: 'string' } },
    Resources: {
      type: 'array',
      items: { type: 'object', properties: { Id: { type: 'integer' }, Priority: { type: 'integer' }, Weight: { type: 'number' } } },
    },
  },
};

t.test('parseCsvBody(toCsv(obj)) coerced by the schema gives the object back', async (t) => {
  const obj = {
    Id: 42,
    Price: 99.5,
    Active: false,
    Name: 'Room "A", floor 2\r\nleft wing',
    Label: '[VIP]',
    Customer: { Id: 7, Email: 'ann@example.com', Vip: true, Discount: -0.25 },
    ResourceIds: [1, 2, 3],
    Tags: ['x', 'y, z', '[b]', '"q"', 'Åsa Öberg 日本 😀'],
    Resources: [
      { Id: 1, Priority: 2, Weight: 0.5 },
      { Id: 3, Priority: 1, Weight: 1e-7 },
    ],
  };
  const csv = toCsv(obj);
  t.strictSame(coerceToSchema(parseCsvBody(csv), booking), obj);
});

t.test('headers and nested keys match fields case-insensitively and take the schema spelling', async (t) => {
  const quoted = parseCsvBody('id,PRICE,active,customer\r\n1,2.5,TRUE,"{email:a@b.se,VIP:1}"\r\n');
  t.strictSame(coerceToSchema(quoted, booking), { Id: 1, Price: 2.5, Active: true, Customer: { Email: 'a@b.se', Vip: true } });
});

t.test('coercion: integers and numbers from numeric text, non-numeric text left for validation', async (t) => {
  t.strictSame(coerceToSchema({ Id: '12', Price: '-1.5e2' }, booking), { Id: 12, Price: -150 });
  for (const id of [' 12', '12 ', '+12', '0x0c', '1.2e1', '12.0', '1_2']) {
    t.strictSame(coerceToSchema({ Id: id }, booking), { Id: id }, `an integer is plain decimal: ${id} is left for validation`);
  }
  for (const price of [' 1.5', '0x10', '+1', '.5', '1.', 'NaN']) {
    t.strictSame(coerceToSchema({ Price: price }, booking), { Price: price }, `${price} is not a number`);
  }
  t.strictSame(coerceToSchema({ Id: 'twelve', Price: '0x10' }, booking), { Id: 'twelve', Price: '0x10' });
  t.strictSame(coerceToSchema({ Id: 'Infinity', Price: '1e999' }, booking), { Id: 'Infinity', Price: '1e999' });
});

t.test('coercion: booleans from true/false in any case and from 1/0', async (t) => {
  const schema: JsonSchema = { type: 'array', items: { type: 'boolean' } };
  t.strictSame(coerceToSchema(['true', 'FALSE', 'True', '1', '0', 'yes'], schema), [true, false, true, true, false, 'yes']);
});

t.test('coercion: nullable fields keep null and read empty JSV text as null', async (t) => {
  const schema: JsonSchema = {
    type: 'object',
    properties: { N: { type: ['integer', 'null'] }, S: { type: ['string', 'null'] } },
  };
  t.strictSame(coerceToSchema({ N: null, S: null }, schema), { N: null, S: null });
  t.strictSame(coerceToSchema({ N: '', S: '' }, schema), { N: null, S: '' });
});

t.test('coercion: a list may come as JSV text or bare comma-separated text', async (t) => {
  t.strictSame(coerceToSchema({ ResourceIds: '[1,2]', Tags: 'a,b' }, booking), { ResourceIds: [1, 2], Tags: ['a', 'b'] });
  t.strictSame(coerceToSchema({ ResourceIds: '1,2,3' }, booking), { ResourceIds: [1, 2, 3] });
});

t.test('coercion: unknown fields are kept as they are for validation to judge', async (t) => {
  t.strictSame(coerceToSchema({ Extra: '1', id: '2' }, booking), { Extra: '1', Id: 2 });
});

t.test('coercion never throws', async (t) => {
  const weird = [{ allOf: 5 }, { type: 5, properties: 'x' }, null, { items: 'nope' }] as unknown as JsonSchema[];
  for (const schema of weird) {
    t.doesNotThrow(() => coerceToSchema({ A: '1', B: ['2'] }, schema));
    t.doesNotThrow(() => coerceToSchema(['1'], schema));
  }
  let deep: unknown = '1';
  const recursive: JsonSchema = { type: 'array' };
  recursive.items = recursive;
  for (let i = 0; i < 10_000; i++) deep = [deep];
  t.doesNotThrow(() => coerceToSchema(deep, recursive));
});

t.test('unicode survives a CSV round trip', async (t) => {
  const obj = { Name: 'Åsa Öberg, Göteborg', Note: '日本語 😀 "quoted"' };
  t.strictSame(coerceToSchema(parseCsvBody(toCsv(obj)), booking), obj);
});
