import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import openapiGlue from 'fastify-openapi-glue';
import { contract } from '../http/contract.js';
import { handlers } from '../operations/index.js';
import type { Handler, OperationContext, OperationId } from '../operations/types.js';
import type { Store } from '../store/db.js';
import { inTransaction } from '../store/transactions.js';
import { tracing } from '../tracing.js';
import { recordEvent, type WebhookEventType } from '../webhooks/outbox.js';
import { answer } from './wire-format.js';

const refuseAnnouncement = (operationId: string) => (name: string) => {
  throw new Error(`${operationId} declares no webhook events, yet announced ${name}`);
};

/**
 * The contract's operations: fastify-openapi-glue builds a route per operation from the
 * document, with the handler of the same operationId (operations/index.ts); the glue is
 * given no security handlers, as the route-hooks plugin authenticates and authorizes each
 * request itself (access.ts), from the same contract.
 */
export async function operationsPlugin(app: FastifyInstance) {
  await app.register(openapiGlue, {
    specification: structuredClone(contract().document),
    operationResolver: (operationId: string) => {
      const handler = (handlers as Record<string, Handler<OperationId>>)[operationId];
      if (!handler) throw new Error(`The contract's operation ${operationId} has no handler`);
      return async (request: FastifyRequest, reply: FastifyReply) => {
        const route = request.routeOptions.config.route;
        const context = (store: Store, announce: OperationContext<OperationId>['announce']): OperationContext<OperationId> => ({
          params: request.params as never,
          query: request.query as never,
          body: request.body as never,
          caller: request.caller,
          companyId: request.companyId as never,
          store,
          config: app.config,
          log: request.log,
          generateSign: app.generateSign,
          announce,
        });
        const events = route?.events ?? [];
        if (events.length === 0) {
          const result = await handler(context(app.store, refuseAnnouncement(operationId)));
          return answer(request, reply, operationId, route?.csvColumns, result);
        }
        // A write with events: the handler and its event commit in one transaction
        // (docs/decisions.md, "Events and deliveries").
        const { result, messageId } = await inTransaction(app.store, async (tx) => {
          let type = events[0] as WebhookEventType;
          const announced = (name: WebhookEventType) => {
            if (!events.includes(name)) throw new Error(`${operationId} does not declare the event ${name}`);
            type = name;
          };
          const answered = await handler(context({ ...app.store, db: tx.db }, announced));
          // Kept with the event for the delivery's logs and traces, never sent (outbox.ts EventContext).
          const eventContext = {
            requestId: request.id,
            traceparent: tracing?.traceparent(),
          };
          return { result: answered, messageId: await recordEvent(tx, request.companyId!, type, answered, new Date(), eventContext) };
        });
        // Committed: the worker claims the event once this answer is sent (the webhooks plugin's onResponse).
        request.recordedEvent = messageId;
        return answer(request, reply, operationId, route?.csvColumns, result);
      };
    },
  });
}
