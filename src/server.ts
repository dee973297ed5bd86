import { setTimeout } from 'node:timers/promises';
import closeWithGrace from 'close-with-grace';
import { pino } from 'pino';
import { requireVerificationKey } from './auth/secret.js';
import { ConfigError, loadConfig, retiredVariables, type Config } from './config.js';
import { loadDemoDataIntoEmptyStore } from './import/demo-data.js';
import { logRedaction } from './tracing/redaction.js';
import { listenForProbes, Readiness } from './http/probes.js';
import { prettyLogs, prettyLogStream } from './log-output.js';
import { isEmpty, openStore } from './store/db.js';
import { startTracing } from './tracing/tracing.js';

/** The signals that close the node gracefully; close-with-grace keeps the rest. */
const STOP_SIGNALS = ['SIGTERM', 'SIGINT'] as const;

/** The only file that listens: configuration, tracing, probes, store, demo data, start, graceful stop. */
async function main(config: Config) {
  // Tracing starts first and the app is imported after it: the HTTP instrumentation patches
  // Node's http as Fastify requires it (docs/decisions.md, "Traces").
  const tracing = await startTracing();
  const { buildApp } = await import('./app.js');
  const logStream = prettyLogs(config.LOG_FORMAT, process.stdout) ? await prettyLogStream() : undefined;
  // The log of what happens outside requests (the probes' listener, the heartbeat), redacted as the app's is.
  const logOptions = { level: config.LOG_LEVEL, redact: logRedaction };
  const log = logStream ? pino(logOptions, logStream) : pino(logOptions);
  // HEALTH_PORT listens first, so that a balancer sees "not ready" while the store migrates.
  const readiness = new Readiness();
  const probes = config.HEALTH_PORT ? await listenForProbes(readiness, config.HEALTH_PORT, config.HOST, log) : undefined;
  for (const message of retiredVariables()) log.warn(message);
  readiness.enter('migrating');
  // The node's version and heartbeat, which `npm run migrate -- --contract` reads, are recorded
  // as it opens the store; closing the store removes them.
  const store = await openStore(config.DATABASE_URL, {
    preparedStatements: config.DATABASE_PREPARED_STATEMENTS,
    node: { onError: (err) => log.warn({ err }, 'the heartbeat, or removing this node from store_nodes, failed') },
  });
  readiness.store = store;
  const app = await buildApp(config, { store, logStream, readiness });
  const { newer, waiting } = store.schema;
  if (newer.length > 0) app.log.warn({ newer }, 'the database holds newer expand migrations: this node, of an older version, serves beside the newer one');
  if (waiting.length > 0) app.log.info({ waiting }, 'contract migrations wait for `npm run migrate -- --contract`');
  app.addHook('onClose', async () => {
    await store.close();
    await tracing?.shutdown();
  });

  if (config.DEMO_DATA && (await isEmpty(store)) && (await loadDemoDataIntoEmptyStore(store))) {
    app.log.info('loaded the demo data set into the empty store');
  }

  // SIGTERM or SIGINT: /ready answers 503 at once; the node serves SHUTDOWN_DELAY_MS more, so
  // that balancers notice, then closes (docs/operating.md, "Stopping"). Another signal then ends
  // it at once, but the same one again within a second counts once: a terminal's Ctrl-C reaches
  // the node from its process group and again as npm passes it on.
  let stopping: { signal: string; at: number } | undefined;
  const closer = closeWithGrace({ delay: config.SHUTDOWN_DELAY_MS + 10000, skip: [...STOP_SIGNALS] }, async ({ signal, err }) => {
    // A close close-with-grace began (another signal, an error) counts as the first signal too.
    stopping ??= { signal: signal ?? 'error', at: performance.now() };
    readiness.enter('draining');
    if (err) app.log.error({ err }, 'closing after an error');
    else app.log.info({ signal: stopping.signal, drainMs: config.SHUTDOWN_DELAY_MS }, 'closing');
    if (!err && config.SHUTDOWN_DELAY_MS > 0) await setTimeout(config.SHUTDOWN_DELAY_MS);
    // HEALTH_PORT closes as the API's port does, before the store it reports on.
    await probes?.close();
    await app.close();
  });
  for (const signal of STOP_SIGNALS) {
    process.on(signal, () => {
      const at = performance.now();
      if (!stopping) {
        stopping = { signal, at };
        void closer.close();
      } else if (signal !== stopping.signal || at - stopping.at > 1000) {
        app.log.warn({ signal }, 'a second signal while closing: exiting at once');
        process.exit(1);
      }
    });
  }

  await app.warmUpMcp();
  // HEALTH_PORT's thread answers from the store's last answer: one is there before it says ready.
  await probes?.refresh();
  const address = await app.listen({ port: config.PORT, host: config.HOST, backlog: config.LISTEN_BACKLOG });
  readiness.enter('serving');
  app.log.info(
    `Booking Administration API on ${address} — docs ${address}/docs. ` +
      `Get a token with: npm run --silent token -- --company <guid> --role bookingsupplier-administrator-write; ` +
      `then: curl -H "Authorization: Bearer <token>" ${address}/categories`,
  );
}

let config: Config;
try {
  config = loadConfig();
  // Said before the store is opened: a node that could not verify tokens has no reason to migrate.
  requireVerificationKey(config);
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
