import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import openapiGlue from 'fastify-openapi-glue';
import { contract } from '../http/contract.js';
import { contentDisposition, toCsv } from '../http/csv.js';
import { isPredefinedRoute } from '../http/servicestack-routes.js';

/**
 * The contract's operations over HTTP: fastify-openapi-glue builds a route per operation from
 * the document, and each route hands its request to the executor (executor/run.ts) as the
 * router and the body parser left it, then writes the answer in the negotiated format. The
 * glue is given no security handlers: the route hooks verify credentials (route-hooks.ts) and
 * the executor decides access, from the same contract.
 */
export async function operationsPlugin(app: FastifyInstance) {
  await app.register(openapiGlue, {
    specification: structuredClone(contract().document),
    operationResolver: (operationId: string) => async (request: FastifyRequest, reply: FastifyReply) => {
      const outcome = await app.runOperation(
        operationId,
        {
          params: request.params as Record<string, unknown>,
          query: request.query as Record<string, unknown>,
          body: request.body,
          mediaType: request.mediaType,
          predefined: isPredefinedRoute(request.raw),
        },
        { caller: request.caller, request, reply, addressCounted: true },
      );
      // Committed: the worker claims the event once this answer is sent (the webhooks plugin's onResponse).
      request.recordedEvent = outcome.recordedEvent;
      if (request.format !== 'csv') return outcome.result;
      reply.type('text/csv; charset=utf-8').header('content-disposition', contentDisposition(operationId));
      return toCsv(outcome.result, outcome.columns);
    },
  });
}
