import { createRequire } from 'node:module';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { contract } from '../http/contract.js';
import { ApiError } from '../http/errors.js';

const require = createRequire(import.meta.url);
// absolute-path.js names the folder without loading the package's index, which runs the
// whole Swagger UI bundle (a start-up and memory cost seen in bench/results.md).
const swaggerUiDir: string = require('swagger-ui-dist/absolute-path.js')();

const page = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Booking Administration API</title>
<link rel="stylesheet" href="/docs/static/swagger-ui.css">
</head>
<body>
<div id="swagger-ui"></div>
<script src="/docs/static/swagger-ui-bundle.js"></script>
<script src="/docs/init.js"></script>
</body>
</html>
`;

const init = `window.ui = SwaggerUIBundle({ url: '/openapi.json', dom_id: '#swagger-ui', deepLinking: true });\n`;

/**
 * The contract as JSON and YAML, Swagger UI served from the installed package (no
 * outside requests), and a health check that asks the store.
 */
export async function docsPlugin(app: FastifyInstance) {
  const { document, yamlText } = contract();
  const json = JSON.stringify(document);
  app.get('/openapi.json', async (_request, reply) => reply.type('application/json; charset=utf-8').send(json));
  app.get('/openapi.yaml', async (_request, reply) =>
    reply.type('application/yaml; charset=utf-8').send(yamlText),
  );
  app.get('/docs', async (_request, reply) => reply.type('text/html; charset=utf-8').send(page));
  app.get('/docs/init.js', async (_request, reply) =>
    reply.type('application/javascript; charset=utf-8').send(init),
  );
  await app.register(fastifyStatic, { root: swaggerUiDir, prefix: '/docs/static/', decorateReply: false });
  app.get('/health', async (request, reply) => {
    try {
      await sql`select 1`.execute(app.store.db);
    } catch (err) {
      request.log.error({ err }, 'health check failed');
      throw new ApiError(503, 'ServiceUnavailable', 'The store does not answer.');
    }
    return reply.type('application/json; charset=utf-8').send('{"Status":"ok"}');
  });
}
