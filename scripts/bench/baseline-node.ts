// The platform's ceiling: bare node:http answering each operation's recorded body (same
// bytes, status and content type) after reading the request body.
// `node --import tsx baseline-node.ts <routes.json>`; listens on 127.0.0.1, a free port.
import { createServer } from 'node:http';
import { loadRoutes } from './baseline-routes.js';

const routes = new Map(loadRoutes(process.argv[2]).map((r) => [r.path, r]));
const server = createServer((request, response) => {
  const path = (request.url ?? '/').split('?')[0];
  request.resume();
  request.on('end', () => {
    const route = routes.get(path);
    if (!route) {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(route.status, { 'content-type': route.contentType, 'content-length': route.body.length });
    response.end(route.body);
  });
});
server.keepAliveTimeout = 5000;
server.listen(0, '127.0.0.1');
process.on('SIGTERM', () => server.close(() => process.exit(0)));
