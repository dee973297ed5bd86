import closeWithGrace from 'close-with-grace';
import { buildApp } from './app.js';
import { ConfigError, loadConfig, type Config } from './config.js';
import { loadDemoData } from './store/demo-data.js';
import { isEmpty, openStore } from './store/db.js';

/** The only file that listens: configuration, store, demo data, start, graceful stop. */
async function main(config: Config) {
  const store = await openStore(config.DATABASE_URL);
  const app = await buildApp(config, { store });
  app.addHook('onClose', async () => store.close());

  if (config.DEMO_DATA && (await isEmpty(store))) {
    await loadDemoData(store);
    app.log.info('loaded the demo data set into the empty store');
  }

  closeWithGrace({ delay: 10000 }, async ({ signal, err }) => {
    if (err) app.log.error({ err }, 'closing after an error');
    else app.log.info({ signal }, 'closing');
    await app.close();
  });

  // REQUEST_TIMEOUT_MS must really cut off a client that sends its headers and then trickles
  // the body (never idle long enough for connectionTimeout). Fastify sets requestTimeout
  // after creating the server, so Node's headersTimeout stays at 60 s, and Node then let
  // such a request run to 60 s (measured; test/robustness/limits.test.ts); Node also checks
  // only every connectionsCheckingInterval (30 s by default, read when listening starts).
  app.server.headersTimeout = Math.min(app.server.headersTimeout, config.REQUEST_TIMEOUT_MS);
  // (A documented createServer option that @types/node does not list as a property.)
  (app.server as { connectionsCheckingInterval?: number }).connectionsCheckingInterval = Math.max(
    100,
    Math.min(1000, Math.floor(config.REQUEST_TIMEOUT_MS / 4)),
  );
  const address = await app.listen({ port: config.PORT, host: config.HOST });
  app.log.info(
    `Booking Administration API on ${address} — docs ${address}/docs. ` +
      `Get a token with: npm run token -- --company <guid> --role bookingsupplier-administrator-write; ` +
      `then: curl -H "Authorization: Bearer <token>" ${address}/categories`,
  );
}

let config: Config;
try {
  config = loadConfig();
} catch (err) {
  if (err instanceof ConfigError) {
    console.error(err.message);
    process.exit(1);
  }
  throw err;
}
main(config).catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
