// The ceilings the API is compared with, each answering an operation's recorded answer (same
// bytes, status and content type) on the route `/<operation id>`: bare Fastify with nothing
// registered (the framework's), or bare node:http after reading the request body (the platform's).
// `node --import tsx baselines.ts fastify|node <routes.json>`; listens on 127.0.0.1, a free port.
// Started with the API server's V8 flags on its node command line (servers.ts, NODE_FLAGS), so
// that the baseline is measured as the API is.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { Answer } from './measure.js';

const [kind, routesFile] = process.argv.slice(2);
const recorded = JSON.parse(readFileSync(routesFile, 'utf8')) as Array<Answer & { path: string }>;
const routes = new Map([
  ...recorded.map((r) => [r.path, { status: r.status, contentType: r.contentType, body: Buffer.from(r.bodyBase64, 'base64') }] as const),
  ['/__ready', { status: 200, contentType: 'text/plain', body: Buffer.from('ready') }] as const,
]);

if (kind === 'fastify') {
  // Imported here only: the node:http baseline loads nothing of Fastify's.
  const { default: Fastify } = await import('fastify');
  const app = Fastify({ logger: false });
  for (const [url, route] of routes) {
    app.route({ method: ['GET', 'POST', 'PUT', 'DELETE'], url, handler: (_request, reply) => reply.code(route.status).header('content-type', route.contentType).send(route.body) });
  }
  await app.listen({ port: 0, host: '127.0.0.1' });
  process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
} else {
  const server = createServer((request, response) => {
    const route = routes.get((request.url ?? '/').split('?')[0]);
    request.resume();
    request.on('end', () => {
      if (!route) response.writeHead(404).end();
      else response.writeHead(route.status, { 'content-type': route.contentType, 'content-length': route.body.length }).end(route.body);
    });
  });
  server.keepAliveTimeout = 5000;
  server.listen(0, '127.0.0.1');
  process.on('SIGTERM', () => server.close(() => process.exit(0)));
}
