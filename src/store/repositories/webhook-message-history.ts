import type { Store } from '../db.js';
import { jsonHelpers, parseJson, type Json } from '../json.js';
import { preparedPages, type Page } from '../paging.js';
import type { Database, Row } from '../schema.js';
import type { DeliveryRow, DeliveryStatus } from './webhook-messages.js';

/** One attempt to deliver a message (Svix's MessageAttemptOut), as webhook-queue.ts records it. */
export type AttemptRow = Row<'webhook_attempts'>;

/** A message to an endpoint with its attempts, oldest first. */
export type MessageRow = DeliveryRow & { attempt_rows: AttemptRow[] };

interface MessageFilter {
  companyId: string;
  endpointId: string;
  status?: DeliveryStatus;
}

const messagePages = preparedPages<Database, 'webhook_deliveries', MessageFilter, DeliveryRow & { attempts_json: Json<unknown[]> }>({
  shape: (filter) => (filter.status ? 'status' : ''),
  from: (db, p, shape) => {
    const own = db.selectFrom('webhook_deliveries').where('company_id', '=', p.companyId).where('endpoint_id', '=', p.endpointId);
    return shape === 'status' ? own.where('status', '=', p.status!) : own;
  },
  select: (q, db) =>
    q.selectAll('webhook_deliveries').select((eb) =>
      jsonHelpers(db)
        .array(
          eb
            .selectFrom('webhook_attempts')
            .select([
              'webhook_attempts.id', 'webhook_attempts.delivery_id', 'webhook_attempts.attempted_at', 'webhook_attempts.url',
              'webhook_attempts.status_code', 'webhook_attempts.duration_ms', 'webhook_attempts.succeeded',
              'webhook_attempts.response', 'webhook_attempts.error', 'webhook_attempts.next_attempt_at',
            ])
            .whereRef('webhook_attempts.delivery_id', '=', 'webhook_deliveries.id')
            .orderBy('webhook_attempts.id'),
        )
        .as('attempts_json'),
    ),
  sortable: { Id: 'webhook_deliveries.id' },
  tiebreak: 'webhook_deliveries.id',
});

/** What an endpoint's messages went through: the read model of WebhookEndpointMessageQuery. */
export function webhookMessageHistoryRepository({ db }: Pick<Store, 'db'>) {
  return {
    /** A page of an endpoint's messages, newest first, each with its attempts (one statement). */
    async page(
      companyId: string,
      endpointId: string,
      filter: { status?: DeliveryStatus },
      request: { Skip?: number | null; Take?: number | null },
    ): Promise<Page<MessageRow>> {
      const page = await messagePages(db, { companyId, endpointId, status: filter.status }, { ...request, OrderByDesc: 'Id' });
      return {
        ...page,
        rows: page.rows.map(({ attempts_json, ...row }) => ({ ...row, attempt_rows: parseJson(attempts_json) as AttemptRow[] })),
      };
    },
  };
}
