import type { components, operations, paths, webhooks } from '../generated/openapi.js';

/** The API's vocabulary, straight from the generated contract types. */
export type Schemas = components['schemas'];

type Method = 'get' | 'put' | 'post' | 'delete' | 'patch';
type PathOperation = { [P in keyof paths]: { [M in Method]: paths[P][M] }[Method] }[keyof paths];
/** The operations of `paths`; `operations` also holds the `webhooks` section's, which the API sends rather than serves. */
export type OperationId = { [K in keyof operations]: operations[K] extends PathOperation ? K : never }[keyof operations];

/** A delivery's body, by event type, as the `webhooks` section declares it. */
export type WebhookEventOf<T extends keyof webhooks> = NonNullable<webhooks[T]['post']>['requestBody']['content']['application/json'];

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
