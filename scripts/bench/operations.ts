import type { BenchMeta } from './bulk.js';
import type { Rng } from './rng.js';

/** One HTTP request shape; `vary` gives each request its own path or body (a random pool member). */
export interface OpRequest {
  method: 'GET' | 'POST' | 'DELETE';
  path: string;
  headers: Record<string, string>;
  body?: string;
  vary?: (rng: Rng) => { path?: string; body?: string };
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
const json = (bearer: string) => ({ authorization: bearer, 'content-type': 'application/json' });
const auth = (bearer: string) => ({ authorization: bearer });
const printouts = (meta: BenchMeta, extra: string) => `/reports/booking/printout?CompanyId=${meta.hotCompanyId}&Take=${PAGE}${extra}`;
/** The last full page of the hot company's printouts: the deepest OFFSET a client asks for. */
const lastPage = (meta: BenchMeta) => Math.max(0, meta.hot.printouts - PAGE);

/** The measured operations; every company-scoped one acts on the data set's hot company. */
export const OPERATIONS: Operation[] = [
  { id: 'CategoryQuery', label: 'CategoryQuery', kind: 'read', status: 200, request: () => ({ method: 'GET', path: '/categories', headers: {} }) },
  {
    id: 'PrintoutFirstPage', label: 'BookingPrintoutQuery, first page', kind: 'read', status: 200, growthTarget: true,
    request: (meta, bearer) => ({ method: 'GET', path: printouts(meta, ''), headers: auth(bearer) }),
  },
  {
    id: 'PrintoutDeepPage', label: 'BookingPrintoutQuery, last page, OrderBy=Name', kind: 'read', status: 200,
    request: (meta, bearer) => ({ method: 'GET', path: printouts(meta, `&Skip=${lastPage(meta)}&OrderBy=Name`), headers: auth(bearer) }),
  },
  {
    id: 'BillingMethodQuery', label: 'BillingMethodQuery, CountryId=SE', kind: 'read', status: 200,
    request: (_meta, bearer) => ({ method: 'GET', path: '/billing/methods?CountryId=SE', headers: auth(bearer) }),
  },
  {
    id: 'GetRebateCodeBySign', label: 'GetRebateCodeBySign', kind: 'read', status: 200, growthTarget: true,
    request: (meta, bearer) => {
      // A different valid gift card each request (signs sent lower-case: lookups ignore case).
      const path = ({ sign, email, serviceId }: BenchMeta['hot']['lookupCodes'][number]) =>
        `/rebatecodes/getbysign?CompanyId=${meta.hotCompanyId}&RebateCodeSign=${sign.toLowerCase()}&ServiceId=${serviceId}` +
        `&IncludeConnectedServices=true&IncludeConnectedDaysOfWeek=true&IncludeConnectedCustomers=true&CustomerEmail=${encodeURIComponent(email)}`;
      return { method: 'GET', path: path(meta.hot.lookupCodes[0]), headers: auth(bearer), vary: (rng) => ({ path: path(rng.pick(meta.hot.lookupCodes)) }) };
    },
  },
  {
    id: 'GetMcpUsage', label: 'GetMcpUsage', kind: 'read', status: 200, growthTarget: true,
    request: (meta, bearer) => ({ method: 'GET', path: `/assistant/mcp/usage?CompanyId=${meta.hotCompanyId}`, headers: auth(bearer) }),
  },
  {
    id: 'DeleteResource409', label: 'DeleteResource, 409 (bookings block it)', kind: 'write', status: 409,
    request: (meta, bearer) => {
      const path = (id: number) => `/resource/${id}?CompanyId=${meta.hotCompanyId}`;
      return { method: 'DELETE', path: path(meta.hot.blockedResources[0]), headers: auth(bearer), vary: (rng) => ({ path: path(rng.pick(meta.hot.blockedResources)) }) };
    },
  },
  {
    id: 'CreateRebateCodeTransaction', label: 'CreateRebateCodeTransaction, Increase', kind: 'write', status: 200,
    request: (meta, bearer) => {
      const body = (id: number) => JSON.stringify({ CompanyId: meta.hotCompanyId, RebateCodeId: id, Amount: 1, Usage: 0, ChangeType: 'Increase' });
      return { method: 'POST', path: '/rebatecodes/transactions', headers: json(bearer), body: body(meta.hot.valueCardIds[0]), vary: (rng) => ({ body: body(rng.pick(meta.hot.valueCardIds)) }) };
    },
  },
  {
    id: 'CreateMessageTemplate', label: 'CreateMessageTemplate', kind: 'write', status: 200,
    request: (meta, bearer) => ({
      method: 'POST', path: '/messages/templates', headers: json(bearer),
      body: JSON.stringify({
        CompanyId: meta.hotCompanyId, TypeId: 1, Name: 'Booking confirmation', Title: 'Thank you for your booking',
        Body: 'Hi {Firstname},\n\nWe look forward to seeing you {From}.\n\nWelcome!', Sender: 'booking@example.com', Language: 'en',
        Services: meta.hot.services.slice(0, 2),
      }),
    }),
  },
  {
    id: 'PrintoutCsv', label: 'BookingPrintoutQuery, first page as CSV', kind: 'read', status: 200, jsonOf: 'PrintoutFirstPage',
    request: (meta, bearer) => ({ method: 'GET', path: printouts(meta, '&format=csv'), headers: auth(bearer) }),
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
