import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import type { Config } from '../config.js';
import { openStore, type Store } from '../store/db.js';

declare module 'fastify' {
  interface FastifyInstance {
    store: Store;
    config: Config;
  }
}

export interface StorePluginOptions {
  config: Config;
  /** an open store to use (its owner closes it); by default DATABASE_URL is opened here and closed with the app */
  store?: Store;
}

/** The configuration and the store, decorated onto the instance for every other plugin. */
export const storePlugin = fp(
  async (app: FastifyInstance, { config, store }: StorePluginOptions) => {
    const opened = store ?? (await openStore(config.DATABASE_URL, { preparedStatements: config.DATABASE_PREPARED_STATEMENTS }));
    if (!store) app.addHook('onClose', async () => opened.close());
    app.decorate('config', config);
    app.decorate('store', opened);
  },
  { name: 'store' },
);
