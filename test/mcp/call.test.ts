import t from 'tap';
import { toolInput } from '../../src/mcp/call.js';
import { mcpTools } from '../../src/mcp/tools.js';
import { contract } from '../contract-operations.js';

// How a tool call's arguments become its operation's input (src/mcp/call.ts): JSON values by
// contract name, each field where the contract puts it, read with HTTP's leniency; nothing
// checked, nothing dropped but `format` and what is not given.

const tool = (name: string) => mcpTools(contract().document).find((candidate) => candidate.definition.name === name)!;

t.test('path, query and body fields go where the contract puts them, under the contract names, names in any case', async (t) => {
  const input = toolInput(tool('UpdateWebhookEndpoint'), { id: 'wh 1', companyid: 'c', Url: 'https://e.example', EventTypes: ['a'], Unknown: 1 });
  t.strictSame(input.params, { Id: 'wh 1' });
  t.strictSame(input.query, { CompanyId: 'c' });
  t.strictSame(input.body, { Url: 'https://e.example', EventTypes: ['a'], Unknown: 1 }, 'the rest is the body, unknown names too');
});

t.test('values keep their JSON types; text becomes the schema type, as over HTTP', async (t) => {
  const input = toolInput(tool('BookingPrintoutQuery'), { Take: '5', Skip: null, Meta: { a: 'x' }, Format: 'csv' });
  t.strictSame(input.query, { Take: 5, Meta: { a: 'x' } }, 'a number sent as text is a number; null and format are left out');
  t.equal(input.body, undefined);
  t.strictSame(toolInput(tool('BookingPrintoutQuery'), { take: 7 }).query, { Take: 7 });
});

t.test('a boolean sent as a string and an enum name in another case read as over HTTP', async (t) => {
  t.strictSame(toolInput(tool('DeleteResource'), { Id: 7, Force: 'true' }).query, { Force: true });
  const change = toolInput(tool('CreateRebateCodeTransaction'), { rebatecodeid: '103', Amount: '25', Usage: '0', ChangeType: 'decrease' });
  t.strictSame(change.body, { RebateCodeId: 103, Amount: 25, Usage: 0, ChangeType: 'Decrease' });
});

t.test('a name spelled as the contract spells it wins over the same name in another case', async (t) => {
  t.strictSame(toolInput(tool('BookingPrintoutQuery'), { take: 1, Take: 2 }).query, { Take: 2 });
  t.strictSame(toolInput(tool('BookingPrintoutQuery'), { Take: 2, take: 1 }).query, { Take: 2 });
});

t.test('a path value is a value, whatever a URL could carry; one not given is missing, for validation to refuse', async (t) => {
  t.strictSame(toolInput(tool('DeleteTag'), { Id: 'x.csv' }).params, { Id: 'x.csv' });
  t.strictSame(toolInput(tool('DeleteTag'), { Id: '..' }).params, { Id: '..' });
  t.strictSame(toolInput(tool('DeleteTag'), {}).params, {});
  t.strictSame(toolInput(tool('DeleteTag'), { Id: '' }).params, {}, 'blank is not given, as a blank query parameter');
});

t.test("a write's IdempotencyKey is no field of its input", async (t) => {
  const input = toolInput(tool('CreateResourceType'), { IdempotencyKey: 'k-1', Name: 'Room' });
  t.equal(input.idempotencyKey, 'k-1');
  t.notOk(Object.hasOwn(input.body as object, 'IdempotencyKey'));
});

t.test('a blank CompanyId of a body means the caller\'s company, as over HTTP', async (t) => {
  const input = toolInput(tool('CreateResourceType'), { CompanyId: ' ', Name: 'Room' });
  t.notOk(Object.hasOwn(input.body as object, 'CompanyId'));
});
