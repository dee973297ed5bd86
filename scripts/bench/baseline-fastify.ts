// The framework's ceiling: bare Fastify, one route per operation answering the operation's
// recorded body (same bytes, status and content type), nothing else registered.
// `node --import tsx baseline-fastify.ts <routes.json>`; listens on 127.0.0.1, a free port.
import Fastify from 'fastify';
import { loadRoutes } from './baseline-routes.js';

const app = Fastify({ logger: false });
for (const route of loadRoutes(process.argv[2])) {
  app.route({
    method: ['GET', 'POST', 'PUT', 'DELETE'],
    url: route.path,
    handler: (_request, reply) => reply.code(route.status).header('content-type', route.contentType).send(route.body),
  });
}
await app.listen({ port: 0, host: '127.0.0.1' });
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
