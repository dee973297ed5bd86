import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import openapiGlue from 'fastify-openapi-glue';
import { createAuthenticator } from '../auth/authenticate.js';
import { contract } from '../http/contract.js';
import { handlers } from '../operations/index.js';
import type { Handler, OperationContext, OperationId } from '../operations/types.js';
import { answer } from './formats.js';

/**
 * The contract's operations: fastify-openapi-glue builds a route per operation from the
 * document, with the handler of the same operationId (operations/index.ts) and the
 * bearer scheme's check. The route-hooks plugin has already put the rest in place.
 */
export async function operationsPlugin(app: FastifyInstance) {
  const authenticate = createAuthenticator(app.config);
  await app.register(openapiGlue, {
    specification: structuredClone(contract().document),
    securityHandlers: {
      bearerAuth: async (request: FastifyRequest) => {
        request.caller = await authenticate(request.headers.authorization);
      },
    },
    operationResolver: (operationId: string) => {
      const handler = (handlers as Record<string, Handler<OperationId>>)[operationId];
      if (!handler) throw new Error(`The contract's operation ${operationId} has no handler`);
      return async (request: FastifyRequest, reply: FastifyReply) => {
        const context: OperationContext<OperationId> = {
          params: request.params as never,
          query: request.query as never,
          body: request.body as never,
          caller: request.caller,
          companyId: request.companyId as never,
          store: app.store,
          config: app.config,
          log: request.log,
        };
        const route = request.routeOptions.config.route;
        return answer(request, reply, operationId, route?.csvColumns, await handler(context));
      };
    },
  });
}
