import { contract } from './contract-operations.js';
import { EXAMPLES, type Example, type ExampleOperation } from './examples.js';
import type { CallOptions, Method } from './requests.js';

/** A query value as the URL carries it; commas stay, as in `Fields=Id,Name`. */
const encode = (value: string | number | boolean) => encodeURIComponent(String(value)).replace(/%2C/g, ',');

/**
 * An example's method and URL: the contract's path template filled in with its path values,
 * `suffix` (`.csv`) after the path, then its query in its order.
 */
export function exampleRequest(operationId: ExampleOperation, example: Example, suffix = ''): { method: Method; url: string } {
  const operation = contract().operations.get(operationId);
  if (!operation) throw new Error(`The contract has no operation ${operationId}`);
  const path = operation.path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = example.path?.[name];
    if (value === undefined) throw new Error(`${operationId}: the example gives no ${name}`);
    return encodeURIComponent(String(value));
  });
  const query = Object.entries(example.query ?? {}).flatMap(([name, value]) => (value === undefined ? [] : [`${encodeURIComponent(name)}=${encode(value)}`]));
  return { method: operation.method as Method, url: `${path}${suffix}${query.length > 0 ? `?${query.join('&')}` : ''}` };
}

/** How test/helper.ts's `api.call` sends an example: its caller and its body. */
export function exampleOptions(example: Example): CallOptions {
  return {
    ...(example.as !== undefined ? { as: example.as } : {}),
    ...(example.company !== undefined ? { company: example.company } : {}),
    ...(example.body !== undefined ? { body: example.body } : {}),
  };
}

type Named = { [K in ExampleOperation]: [K, keyof (typeof EXAMPLES)[K] & string] }[ExampleOperation];

// One call of each operation's success paths, in an order where each succeeds once on the
// demo data: round-trips.test.ts counts their statements, compiles.test.ts their compiles.
const CALLED: Named[] = [
  ['CategoryQuery', 'default'],
  ['BillingMethodQuery', 'default'],
  ['BookingPrintoutQuery', 'default'],
  ['BookingPrintoutQuery', 'CSV'],
  ['GetMcpUsage', 'default'],
  ['BookingPrintoutQuery', 'past the end'],
  ['GetRebateCodeBySign', 'with customers'],
  ['GetRebateCodeBySign', 'per-customer count'],
  ['GetRebateCodeBySign', 'public view'],
  ['CreateRebateCodeTransaction', 'default'],
  ['CreateRebateCodeTransaction', 'with a booking'],
  ['CreateArticleRebateCode', 'new buyer'],
  ['CreateArticleRebateCode', 'no buyer'],
  ['DeleteResource', 'deleted'],
  ['DeleteResource', 'deactivated'],
  ['DeleteCustomField', 'default'],
  ['DeleteTag', 'default'],
  ['CreateMessageTemplate', 'default'],
  ['CreateMessageTemplate', 'for all services'],
  ['CreateResourceType', 'default'],
  ['CreateResourceType', 'no resources'],
  ['UpdateWebhookEndpoint', 'default'],
];

/** Each call named `Operation` (its default example) or `Operation, example`, with its method, URL and options. */
export const SUCCESSFUL_CALLS: Array<[name: string, method: Method, url: string, options?: CallOptions]> = CALLED.map(([operationId, name]) => {
  const example: Example = (EXAMPLES[operationId] as Record<string, Example>)[name];
  const { method, url } = exampleRequest(operationId, example);
  return [name === 'default' ? operationId : `${operationId}, ${name}`, method, url, exampleOptions(example)];
});
