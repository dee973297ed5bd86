import type { BaseLogger } from 'pino';
import type { Caller } from '../domain/caller.js';
import type { Config } from '../config.js';
import type { BodyOf, OperationId, PathOf, QueryOf, ResultOf, Schemas } from '../contract/types.js';
import type { Store } from '../store/db.js';

export type { BodyOf, OperationId, Schemas } from '../contract/types.js';

/** The log of the call, pino's: any transport's request log is one. */
export type Log = Pick<BaseLogger, 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace'>;

/** Operations that take a CompanyId, in the query or the body, act on a company. */
type ActsOnCompany<K extends OperationId> = 'CompanyId' extends keyof QueryOf<K> | keyof NonNullable<BodyOf<K>> ? true : false;

/** What a handler gets: the validated request, who calls, and the store. */
export interface OperationContext<K extends OperationId> {
  params: PathOf<K>;
  query: QueryOf<K>;
  body: BodyOf<K>;
  caller?: Caller;
  /** the company the call acts on: the CompanyId given, or the caller's (resolved once, before the handler) */
  companyId: ActsOnCompany<K> extends true ? string : undefined;
  store: Store;
  config: Config;
  log: Log;
  /** draws a new rebate code sign (AppOptions.generateSign; domain/rebate-code-sign.ts by default) */
  generateSign: () => string;
  /**
   * Names the webhook event the write records, where the operation declares more than one
   * (`x-webhook-events`); otherwise the one it declares is recorded.
   */
  announce(type: Schemas['WebhookEventType']): void;
}

export type Handler<K extends OperationId> = (context: OperationContext<K>) => Promise<ResultOf<K>>;

/** One handler per operationId: a missing or wrongly typed handler fails `tsc`. */
export type Handlers = { [K in OperationId]: Handler<K> };
export type HandlersOf<K extends OperationId> = { [P in K]: Handler<P> };
