import t from 'tap';
import { MAX_PATH_PARAMETER } from '../../src/http/errors.js';
import { operationInput } from '../../src/mcp/call.js';
import { mcpTools } from '../../src/mcp/tools.js';
import { contract } from '../contract-operations.js';

// How a tool call's arguments become the request its operation's route reads (src/mcp/call.ts):
// each field where the contract puts it, as the router and the parsers would leave an HTTP
// request; nothing checked, nothing dropped but `format`.

const tool = (name: string) => mcpTools(contract().document).find((candidate) => candidate.definition.name === name)!;
const plain = (value: unknown) => JSON.parse(JSON.stringify(value));

t.test('path, query and body fields go where the contract puts them, names in any case', async (t) => {
  const input = operationInput(tool('UpdateWebhookEndpoint'), { id: 'wh 1', CompanyId: 'c', Url: 'https://e.example', EventTypes: ['a'], Unknown: 1 });
  t.strictSame(input.params, { Id: 'wh 1' });
  t.strictSame(plain(input.query), { CompanyId: 'c' });
  t.strictSame(input.body, { Url: 'https://e.example', EventTypes: ['a'], Unknown: 1 }, 'the rest is the body, unknown names too');
  t.equal(input.pathTooLong, false);
});

t.test('without a body: every argument in the query string, as text, lists repeated, maps as deepObject, nulls left out', async (t) => {
  const input = operationInput(tool('BookingPrintoutQuery'), { Take: 5, Skip: null, Meta: { a: 'x' }, Extra: [1, 2], Format: 'csv' });
  t.strictSame(plain(input.query), { Take: '5', Meta: { a: 'x' }, Extra: ['1', '2'] });
  t.equal(input.body, undefined);
});

t.test('a path value no segment can carry makes the predefined route; dots stay in the value', async (t) => {
  t.strictSame(operationInput(tool('DeleteTag'), { Id: 'x.csv' }).params, { Id: 'x.csv' });
  const missing = operationInput(tool('DeleteTag'), {});
  t.strictSame(missing.params, {});
  t.strictSame(plain(missing.query), {});
  const dots = operationInput(tool('DeleteTag'), { Id: '..', CompanyId: 'c' });
  t.strictSame([dots.params, plain(dots.query)], [{}, { CompanyId: 'c', Id: '..' }]);
  t.strictSame(plain(operationInput(tool('DeleteTag'), { Id: { n: 1 } }).query), { Id: { n: '1' } });
});

t.test('a path value longer than the router takes is marked, as the router refuses it', async (t) => {
  t.equal(operationInput(tool('DeleteTag'), { Id: 'x'.repeat(MAX_PATH_PARAMETER) }).pathTooLong, false);
  t.equal(operationInput(tool('DeleteTag'), { Id: 'x'.repeat(MAX_PATH_PARAMETER + 1) }).pathTooLong, true);
  t.equal(operationInput(tool('DeleteTag'), { Id: 'é'.repeat(40) }).pathTooLong, true, 'counted as sent, percent-encoded');
});
