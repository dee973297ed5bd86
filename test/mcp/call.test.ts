import t from 'tap';
import { operationRequest } from '../../src/mcp/call.js';
import { mcpTools } from '../../src/mcp/tools.js';
import { contract } from '../contract-operations.js';

// How a tool call's arguments become the request to the operation's route (src/mcp/call.ts):
// each field where the contract puts it; nothing checked, nothing dropped but `format`.

const tool = (name: string) => mcpTools(contract().document).find((candidate) => candidate.definition.name === name)!;
const sender = { authorization: 'Bearer x', address: '10.1.2.3' };

t.test('path, query and body fields go where the contract puts them, names in any case', async (t) => {
  const request = operationRequest(tool('UpdateWebhookEndpoint'), { id: 'wh 1', CompanyId: 'c', Url: 'https://e.example', EventTypes: ['a'], Unknown: 1 }, sender);
  t.match(request, {
    method: 'PUT',
    url: '/webhook/endpoints/wh%201?CompanyId=c',
    headers: { authorization: 'Bearer x', accept: 'application/json', 'content-type': 'application/json' },
    remoteAddress: '10.1.2.3',
  });
  t.strictSame(JSON.parse(String(request.payload)), { Url: 'https://e.example', EventTypes: ['a'], Unknown: 1 }, 'the rest is the body, unknown names too');
});

t.test('without a body: every argument in the query string, lists repeated, maps as deepObject, nulls left out', async (t) => {
  const request = operationRequest(tool('BookingPrintoutQuery'), { Take: 5, Skip: null, Meta: { a: 'x' }, Extra: [1, 2], Format: 'csv' }, sender);
  t.equal(request.url, '/reports/booking/printout?Take=5&Meta%5Ba%5D=x&Extra=1&Extra=2');
  t.equal(request.payload, undefined);
});

t.test('a path value no segment can carry goes to the predefined route; dots never change the format', async (t) => {
  t.equal(operationRequest(tool('DeleteTag'), { Id: 'x.csv' }, sender).url, '/tags/x%2Ecsv');
  t.equal(operationRequest(tool('DeleteTag'), {}, sender).url, '/api/DeleteTag');
  t.equal(operationRequest(tool('DeleteTag'), { Id: '..', CompanyId: 'c' }, sender).url, '/api/DeleteTag?CompanyId=c&Id=..');
  t.equal(operationRequest(tool('DeleteTag'), { Id: { n: 1 } }, sender).url, '/api/DeleteTag?Id%5Bn%5D=1');
});
