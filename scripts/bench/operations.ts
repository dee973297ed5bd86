import { EXAMPLES, type Example, type ExampleOperation } from '../../test/examples.js';
import { exampleRequest } from '../../test/operation-calls.js';
import type { BenchMeta } from './bulk.js';
import type { Rng } from './rng.js';

/** One HTTP request shape; `vary` gives each request its own path or body (a random pool member). */
export interface OpRequest {
  method: 'GET' | 'POST' | 'DELETE';
  path: string;
  headers: Record<string, string>;
  body?: string;
  vary?: (rng: Rng) => { path?: string; body?: string; headers?: Record<string, string> };
}

export interface Operation {
  id: string;
  /** how the report names it */
  label: string;
  kind: 'read' | 'write';
  /** the status every answer must have (409: DeleteResource's refusal path) */
  status: number;
  /** CSV: the JSON operation it is compared with */
  jsonOf?: string;
  /** its p99 at full scale must stay within 1.5× of the 1% scale */
  growthTarget?: boolean;
  request(meta: BenchMeta, bearer: string): OpRequest;
}

/**
 * The page size of the printout queries: no more than the 1% scale's hot company holds, so
 * both scales answer the same number of rows and the p99 growth measures the data, not
 * a larger answer.
 */
const PAGE = 25;
/** The last full page of the hot company's printouts: the deepest OFFSET a client asks for. */
const lastPage = (meta: BenchMeta) => Math.max(0, meta.hot.printouts - PAGE);

/** The data set's values the bench puts on an example of test/examples.ts, in place of the demo data's. */
interface OnDataSet {
  path?: Record<string, string | number>;
  query?: Record<string, string | number | boolean>;
  body?: Record<string, unknown>;
  /** false: the request names no company (the caller's is the hot one); else the hot company's CompanyId comes first */
  company?: false;
}

/** An example as a request on the data set, with `values` on top of it. */
function onDataSet(operationId: ExampleOperation, example: Example, meta: BenchMeta, bearer: string, values: OnDataSet = {}): OpRequest {
  // The hot company's CompanyId in place of the demo company's, first, where a client writes it.
  const company = values.company === false ? {} : { CompanyId: meta.hotCompanyId };
  const inBody = example.body !== undefined;
  const varied: Example = {
    ...example,
    path: { ...example.path, ...values.path },
    query: inBody ? { ...example.query, ...values.query } : { ...company, ...example.query, ...company, ...values.query },
    ...(inBody ? { body: { ...company, ...example.body, ...company, ...values.body } } : {}),
  };
  const { method, url } = exampleRequest(operationId, varied);
  const headers: Record<string, string> = example.as === null ? {} : { authorization: bearer };
  if (varied.body !== undefined) headers['content-type'] = 'application/json';
  return { method: method as OpRequest['method'], path: url, headers, ...(varied.body === undefined ? {} : { body: JSON.stringify(varied.body) }) };
}

/** The measured operations; every company-scoped one acts on the data set's hot company. */
export const OPERATIONS: Operation[] = [
  {
    id: 'CategoryQuery', label: 'CategoryQuery', kind: 'read', status: 200,
    request: (meta, bearer) => onDataSet('CategoryQuery', EXAMPLES.CategoryQuery.all, meta, bearer, { company: false }),
  },
  {
    id: 'PrintoutFirstPage', label: 'BookingPrintoutQuery, first page', kind: 'read', status: 200, growthTarget: true,
    request: (meta, bearer) => onDataSet('BookingPrintoutQuery', EXAMPLES.BookingPrintoutQuery['first page'], meta, bearer, { query: { Take: PAGE } }),
  },
  {
    id: 'PrintoutDeepPage', label: 'BookingPrintoutQuery, last page, OrderBy=Name', kind: 'read', status: 200,
    request: (meta, bearer) =>
      onDataSet('BookingPrintoutQuery', EXAMPLES.BookingPrintoutQuery.default, meta, bearer, { query: { Take: PAGE, Skip: lastPage(meta), OrderBy: 'Name' } }),
  },
  {
    id: 'BillingMethodQuery', label: 'BillingMethodQuery, CountryId=SE', kind: 'read', status: 200,
    request: (meta, bearer) => onDataSet('BillingMethodQuery', EXAMPLES.BillingMethodQuery.default, meta, bearer, { company: false }),
  },
  {
    id: 'GetRebateCodeBySign', label: 'GetRebateCodeBySign', kind: 'read', status: 200, growthTarget: true,
    request: (meta, bearer) => {
      // A different valid gift card each request (signs sent lower-case: lookups ignore case).
      const lookup = ({ sign, email, serviceId }: BenchMeta['hot']['lookupCodes'][number]) =>
        onDataSet('GetRebateCodeBySign', EXAMPLES.GetRebateCodeBySign['with customers'], meta, bearer, {
          query: { RebateCodeSign: sign.toLowerCase(), ServiceId: serviceId, CustomerEmail: email },
        });
      return { ...lookup(meta.hot.lookupCodes[0]), vary: (rng) => ({ path: lookup(rng.pick(meta.hot.lookupCodes)).path }) };
    },
  },
  {
    id: 'GetMcpUsage', label: 'GetMcpUsage', kind: 'read', status: 200, growthTarget: true,
    request: (meta, bearer) => onDataSet('GetMcpUsage', EXAMPLES.GetMcpUsage.default, meta, bearer),
  },
  {
    id: 'DeleteResource409', label: 'DeleteResource, 409 (bookings block it)', kind: 'write', status: 409,
    request: (meta, bearer) => {
      const remove = (id: number) => onDataSet('DeleteResource', EXAMPLES.DeleteResource.blocked, meta, bearer, { path: { Id: id } });
      return { ...remove(meta.hot.blockedResources[0]), vary: (rng) => ({ path: remove(rng.pick(meta.hot.blockedResources)).path }) };
    },
  },
  {
    id: 'CreateRebateCodeTransaction', label: 'CreateRebateCodeTransaction, Increase', kind: 'write', status: 200,
    request: (meta, bearer) => {
      const increase = (id: number) =>
        onDataSet('CreateRebateCodeTransaction', EXAMPLES.CreateRebateCodeTransaction.increase, meta, bearer, { body: { RebateCodeId: id, Amount: 1 } });
      return { ...increase(meta.hot.valueCardIds[0]), vary: (rng) => ({ body: increase(rng.pick(meta.hot.valueCardIds)).body }) };
    },
  },
  {
    id: 'CreateMessageTemplate', label: 'CreateMessageTemplate', kind: 'write', status: 200,
    request: (meta, bearer) =>
      onDataSet('CreateMessageTemplate', EXAMPLES.CreateMessageTemplate.default, meta, bearer, { body: { Services: meta.hot.services.slice(0, 2) } }),
  },
  {
    id: 'PrintoutCsv', label: 'BookingPrintoutQuery, first page as CSV', kind: 'read', status: 200, jsonOf: 'PrintoutFirstPage',
    request: (meta, bearer) => onDataSet('BookingPrintoutQuery', EXAMPLES.BookingPrintoutQuery.CSV, meta, bearer, { query: { Take: PAGE } }),
  },
];

/**
 * The operations `--only` names (all when none), with the JSON operation a CSV one is
 * compared with. An unknown id is an error that lists the known ones.
 */
export function selectOperations(only: readonly string[]): Operation[] {
  if (only.length === 0) return OPERATIONS;
  const unknown = only.filter((id) => !OPERATIONS.some((op) => op.id === id));
  if (unknown.length > 0) throw new Error(`--only: unknown operation(s) ${unknown.join(', ')}; known: ${OPERATIONS.map((op) => op.id).join(', ')}`);
  const wanted = new Set(only.flatMap((id) => [id, OPERATIONS.find((op) => op.id === id)!.jsonOf ?? id]));
  return OPERATIONS.filter((op) => wanted.has(op.id));
}
