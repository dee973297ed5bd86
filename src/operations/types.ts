import type { FastifyBaseLogger } from 'fastify';
import type { Caller } from '../domain/caller.js';
import type { Config } from '../config.js';
import type { components, operations } from '../generated/openapi.js';
import type { Store } from '../store/db.js';

/** The API's vocabulary, straight from the generated contract types. */
export type Schemas = components['schemas'];
export type OperationId = keyof operations;

type Parameters<K extends OperationId> = operations[K]['parameters'];
export type PathOf<K extends OperationId> = Parameters<K> extends { path: infer P } ? P : Record<string, never>;
export type QueryOf<K extends OperationId> = NonNullable<Parameters<K>['query']>;
export type BodyOf<K extends OperationId> = operations[K] extends {
  requestBody: { content: { 'application/json': infer B } };
}
  ? B
  : undefined;
export type ResultOf<K extends OperationId> = operations[K]['responses'][200] extends {
  content: { 'application/json': infer R };
}
  ? R
  : never;

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
  log: FastifyBaseLogger;
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
