import type { components, operations } from '../generated/openapi.js';

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
