import { buildDemoData, DEMO_COMPANY_A, DEMO_COMPANY_B } from '../../src/store/demo-data.js';
import type { WebhookEventType } from '../../src/store/repositories/webhook-messages.js';
import type { CallOptions, Method } from '../helper.js';

// What the webhook tests share: the demo data with its endpoints pointed at a local
// receiver, and one write for each event of the contract's catalogue (WebhookEventType).

/** A Standard Webhooks secret per endpoint: `whsec_` + standard base64 of 32 bytes. */
export const secretFor = (name: string) => `whsec_${Buffer.from(name.padEnd(32, '#')).toString('base64')}`;

export interface TestEndpoint {
  company: string;
  id: string;
  eventTypes: readonly string[];
  disabled?: boolean;
  /** the URL; by default `<receiver>/<id>` */
  url?: string;
}

/** The demo data with `endpoints` instead of its own (whose hosts are off this machine). */
export function dataWithEndpoints(origin: string, endpoints: TestEndpoint[]) {
  return {
    ...buildDemoData(),
    WebhookEndpoints: endpoints.map((e) => ({
      CompanyId: e.company,
      Id: e.id,
      Url: e.url ?? `${origin}/${e.id}`,
      EventTypes: [...e.eventTypes],
      Disabled: e.disabled ?? false,
      Secret: secretFor(e.id),
    })),
  };
}

/** The endpoint id a receiver path names (`/a-all` → `a-all`), for its secret. */
export const secretOfPath = (path: string) => secretFor(path.split('?')[0].slice(1));

export const A = DEMO_COMPANY_A;
export const B = DEMO_COMPANY_B;

/** One write of company A per event type, on the demo data: the compiler holds it to the catalogue. */
export const WRITES: Record<WebhookEventType, [Method, string, CallOptions?]> = {
  'resource.deleted': ['DELETE', '/resource/103'],
  'resource.deactivated': ['DELETE', '/resource/101?Force=true'],
  'resourcetype.created': ['POST', '/resourcetypes', { body: { Name: 'Rooms' } }],
  'tag.deactivated': ['DELETE', '/tags/102'],
  'customfield.deleted': ['DELETE', '/customfields/102'],
  'messagetemplate.created': ['POST', '/messages/templates', { body: { TypeId: 1, Name: 'Thanks', Title: 'Thanks', Body: 'Thank you' } }],
  'rebatecode.created': ['POST', '/rebatecodes/fromarticle', { body: { ArticleId: 102 } }],
  'rebatecode.transaction.created': ['POST', '/rebatecodes/transactions', { body: { RebateCodeId: 101, Amount: 10, Usage: 0, ChangeType: 'Decrease' } }],
};

/** The catalogue's event types, in the order of WRITES. */
export const EVENT_TYPES = Object.keys(WRITES) as WebhookEventType[];

/** Deliveries on, to private addresses (the receiver is on 127.0.0.1), retried quickly. */
export const DELIVERY_CONFIG = {
  WEBHOOK_DELIVERY: true,
  WEBHOOK_ALLOW_PRIVATE_TARGETS: true,
  WEBHOOK_POLL_INTERVAL_MS: 20,
  WEBHOOK_RETRY_SCHEDULE: '100ms,200ms,300ms',
  WEBHOOK_TIMEOUT_MS: 2000,
};
