import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { NEVER_SHED } from './load.js';
import { health, ready, type Readiness } from '../http/probes.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** the node's phase, which /ready answers from (http/probes.ts) */
    readiness: Readiness;
  }
}

/** `/health` and `/ready` on the API's port, never rate limited nor shed, always in JSON. */
export const probesPlugin = fp(
  async (app: FastifyInstance, { readiness }: { readiness: Readiness }) => {
    readiness.store ??= app.store;
    app.decorate('readiness', readiness);
    const config = { rateLimit: false as const, ownMediaTypes: true, ...NEVER_SHED };
    for (const [url, probe] of [['/health', health], ['/ready', ready]] as const) {
      app.get(url, { config }, async (request: FastifyRequest, reply: FastifyReply) => {
        const { status, body } = await probe(readiness, request.log);
        return reply.code(status).header('cache-control', 'no-store').type('application/json; charset=utf-8').send(body);
      });
    }
  },
  { name: 'probes', dependencies: ['store'] },
);
