import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';
import { contract } from '../contract/contract.js';
import { toOpenApi30 } from '../contract/openapi-3.0.js';

const require = createRequire(import.meta.url);
// The package's folder, from its package.json: loading its index would run the whole Swagger
// UI bundle (a start-up and memory cost), and no other file of it is needed here.
const swaggerUiDir = dirname(require.resolve('swagger-ui-dist/package.json'));

const page = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Booking Administration API</title>
<link rel="stylesheet" href="/docs/static/swagger-ui.css">
<link rel="icon" type="image/png" href="/docs/static/favicon-32x32.png">
</head>
<body>
<div id="swagger-ui"></div>
<script src="/docs/static/swagger-ui-bundle.js"></script>
<script src="/docs/init.js"></script>
</body>
</html>
`;

// "Try it out" calls the contract's server, `/`: a relative URL, which Swagger UI resolves
// against the page's origin, so calls go wherever the page came from. An absolute URL there
// would be blocked by the page's CSP (connect-src 'self') on every other host and port.
const init = `window.ui = SwaggerUIBundle({ url: '/openapi.json', dom_id: '#swagger-ui', deepLinking: true });\n`;

/**
 * The page's Content-Security-Policy: the one every answer carries (protection.ts) without
 * helmet's `upgrade-insecure-requests`. That directive makes the browser fetch the page's
 * scripts and the contract over HTTPS even when the page came over plain HTTP, so Swagger UI
 * loaded nothing from a server reached by any name but localhost (HOST=0.0.0.0 opened by its
 * host name or LAN address). The page's URLs are relative, so over HTTPS they are HTTPS
 * already: the directive protects nothing here.
 */
function docsPagePolicy(policy: string): string {
  return policy
    .split(';')
    .filter((directive) => directive.trim().toLowerCase() !== 'upgrade-insecure-requests')
    .join(';');
}

let openApi30Json: string | undefined;

/** The contract as OpenAPI 3.0.3 (contract/openapi-3.0.ts), worked out once per process. */
function openApi30(): string {
  openApi30Json ??= JSON.stringify(toOpenApi30(contract().document));
  return openApi30Json;
}

/**
 * The contract as JSON and YAML, its OpenAPI 3.0.3 copy as JSON, and Swagger UI served from
 * the installed package (no outside requests).
 */
export async function docsPlugin(app: FastifyInstance) {
  const { document, yamlText } = contract();
  const json = JSON.stringify(document);
  const json30 = openApi30();
  app.get('/openapi.json', async (_request, reply) => reply.type('application/json; charset=utf-8').send(json));
  app.get('/openapi-3.0.json', async (_request, reply) => reply.type('application/json; charset=utf-8').send(json30));
  app.get('/openapi.yaml', async (_request, reply) =>
    reply.type('application/yaml; charset=utf-8').send(yamlText),
  );
  app.get('/docs', async (_request, reply) => {
    const policy = reply.getHeader('content-security-policy');
    if (typeof policy === 'string') reply.header('content-security-policy', docsPagePolicy(policy));
    return reply.type('text/html; charset=utf-8').send(page);
  });
  app.get('/docs/init.js', async (_request, reply) =>
    reply.type('application/javascript; charset=utf-8').send(init),
  );
  await app.register(fastifyStatic, { root: swaggerUiDir, prefix: '/docs/static/', decorateReply: false });
}
