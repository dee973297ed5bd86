import { scopeOf, type OauthScope } from '../domain/caller.js';
import { contract } from './contract.js';
import type { JsonSchema } from './coercion.js';
import type { OperationId, Schemas } from './types.js';

/**
 * The contract's facts of each operation, read once from the document into one typed table
 * (docs/decisions.md, "One way to run an operation"). Nothing else reads the `x-` keys: the
 * executor, the HTTP routes and the MCP tools all take them from here.
 */
export interface OperationFacts {
  operationId: OperationId;
  /** upper case, as HTTP writes it */
  method: string;
  /** the OpenAPI path template */
  path: string;
  summary?: string;
  description?: string;
  /** the operation asks for the bearer scheme (its `security`, or the document's) */
  authenticated: boolean;
  /** roles of which the caller needs any one (`x-roles`); empty: any authenticated caller */
  roles: readonly string[];
  /** any authenticated caller may name any company (`x-any-company`) */
  anyCompany: boolean;
  /** a refused role or company is 403 where the operation declares it, else 401 */
  declares403: boolean;
  /** the operation acts on a company: it takes a CompanyId in its query or body */
  actsOnCompany: boolean;
  /** which rate limit counts a call: the caller's tighter one (`x-rate-limit: strict`) or the address's */
  rateLimit: 'strict' | 'address';
  /** the OAuth scope a token needs for it (domain/caller.ts, scopeOf) */
  scope: OauthScope;
  /** a write that takes an Idempotency-Key (its header parameter): it runs once per company and key */
  keyed: boolean;
  /** the webhook events a successful call records (`x-webhook-events`); the first unless the handler names another */
  events: readonly Schemas['WebhookEventType'][];
  /** the operation also speaks CSV (`x-csv`): its answers on request, and its body */
  csv: boolean;
  /** the media types a body may be sent in (the declared ones, and text/csv with `x-csv`); empty when it takes none */
  bodyMediaTypes: string[];
  /** the CSV columns of the answer: the properties of its item (query) or object schema */
  csvColumns?: string[];
  /** `x-mcp`: false hides its tool; an object overrides the tool's annotations */
  mcp: boolean | Record<string, unknown>;
  /** the parameters (components resolved, schemas as written) and the raw body and 200 schemas, for the MCP tools */
  parameters: Record<string, any>[];
  bodyRequired: boolean;
  rawBody?: JsonSchema;
  rawOk?: JsonSchema;
  /** the schemas of the request's parts and of the 200 answer, `$ref`s resolved */
  params?: JsonSchema;
  query?: JsonSchema;
  body?: JsonSchema;
  ok?: JsonSchema;
}

const METHODS = ['get', 'put', 'post', 'delete', 'patch'];

type Document = Record<string, any>;

/** A `$ref` of another kind than schemas (parameters, request bodies, responses), resolved. */
export function component(document: Document, node: any): any {
  const ref = node?.$ref;
  if (typeof ref !== 'string') return node;
  const match = /^#\/components\/(parameters|requestBodies|responses)\/([^/]+)$/.exec(ref);
  const target = match ? document.components?.[match[1]]?.[match[2]] : undefined;
  if (target === undefined) throw new Error(`Unresolved $ref ${ref}`);
  return component(document, target);
}

/**
 * A schema with its `$ref`s to the document's schemas inlined, as Ajv and the serializer read
 * it. The contract has no recursive schema; one would be taken as any value where it recurs.
 */
function inline(document: Document, node: unknown, path: string[] = []): any {
  if (Array.isArray(node)) return node.map((item) => inline(document, item, path));
  if (node === null || typeof node !== 'object') return node;
  const ref = (node as { $ref?: unknown }).$ref;
  if (typeof ref === 'string') {
    const name = /^#\/components\/schemas\/([^/]+)$/.exec(ref)?.[1];
    if (name === undefined) throw new Error(`A schema can only refer to #/components/schemas/…, not ${ref}`);
    const target = document.components?.schemas?.[name];
    if (target === undefined) throw new Error(`Unresolved $ref ${ref}`);
    if (path.includes(name!)) return {};
    return inline(document, target, [...path, name!]);
  }
  return Object.fromEntries(Object.entries(node).map(([key, value]) => [key, inline(document, value, path)]));
}

/** The schema of parameters of one place, as an object whose properties they are (fastify-openapi-glue's reading). */
function parametersSchema(document: Document, parameters: Record<string, any>[]): JsonSchema | undefined {
  if (parameters.length === 0) return undefined;
  // A single object parameter that explodes is the whole query string (OpenAPI's `form` style).
  const [only] = parameters;
  if (parameters.length === 1 && only.schema?.type === 'object' && (only.explode ?? (only.style ?? 'form') === 'form')) {
    return inline(document, only.schema);
  }
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  for (const parameter of parameters) {
    properties[parameter.name] = inline(document, parameter.schema ?? {});
    if (parameter.required) required.push(parameter.name);
  }
  return { type: 'object', properties, ...(required.length > 0 ? { required } : {}) };
}

/**
 * The media types an operation's body may be sent in: the contract declares JSON bodies
 * alone, so that clients generated from it type them, and `x-csv` adds CSV, read into the
 * same schema.
 */
export function bodyMediaTypes(declared: string[], csv: boolean): string[] {
  return declared.length > 0 && csv && !declared.includes('text/csv') ? [...declared, 'text/csv'] : declared;
}

/** Whether a security requirement list asks for the bearer scheme; `[]` and an empty alternative (`{}`) ask for nothing. */
const asksForBearer = (requirements: unknown[]) =>
  requirements.length > 0 && requirements.every((requirement) => Object.keys(requirement as object).length > 0);

function factsOf(document: Document, method: string, path: string, item: Document, operation: Document): OperationFacts {
  const parameters = [...(item.parameters ?? []), ...(operation.parameters ?? [])].map((p) => component(document, p));
  const inPlace = (place: string) => parameters.filter((p) => p.in === place);
  const requestBody = operation.requestBody ? component(document, operation.requestBody) : undefined;
  const rawBody = requestBody?.content?.['application/json']?.schema;
  const okResponse = operation.responses?.['200'] ? component(document, operation.responses['200']) : undefined;
  const rawOk = okResponse?.content?.['application/json']?.schema;
  const query = parametersSchema(document, inPlace('query'));
  const body = rawBody === undefined ? undefined : inline(document, rawBody);
  const ok = rawOk === undefined ? undefined : inline(document, rawOk);
  const item200 = ok?.properties?.Results?.items ?? ok;
  const csv = operation['x-csv'] === true;
  return {
    operationId: operation.operationId,
    method: method.toUpperCase(),
    path,
    ...(operation.summary ? { summary: String(operation.summary).trim() } : {}),
    ...(operation.description ? { description: String(operation.description).trim() } : {}),
    authenticated: asksForBearer(operation.security ?? document.security ?? []),
    roles: operation['x-roles'] ?? [],
    anyCompany: operation['x-any-company'] === true,
    declares403: Object.hasOwn(operation.responses ?? {}, '403'),
    actsOnCompany: Boolean(query?.properties?.CompanyId ?? body?.properties?.CompanyId),
    rateLimit: operation['x-rate-limit'] === 'strict' ? 'strict' : 'address',
    scope: scopeOf(method),
    keyed: parameters.some((p) => p.in === 'header' && p.name === 'Idempotency-Key'),
    events: operation['x-webhook-events'] ?? [],
    csv,
    bodyMediaTypes: bodyMediaTypes(Object.keys(requestBody?.content ?? {}), csv),
    csvColumns: item200?.properties ? Object.keys(item200.properties) : undefined,
    mcp: operation['x-mcp'] ?? true,
    parameters,
    bodyRequired: requestBody?.required === true,
    rawBody,
    rawOk,
    params: parametersSchema(document, inPlace('path')),
    query,
    body,
    ok,
  };
}

/** Every operation of a contract document, in the document's order. */
export function operationTable(document: Document): OperationFacts[] {
  const table: OperationFacts[] = [];
  for (const [path, item] of Object.entries<Document>(document.paths ?? {})) {
    for (const method of METHODS) {
      const operation = item[method];
      if (operation?.operationId) table.push(factsOf(document, method, path, item, operation));
    }
  }
  return table;
}

let byId: ReadonlyMap<string, OperationFacts> | undefined;

/** The contract's operations by operationId, read on first use. */
export function operations(): ReadonlyMap<string, OperationFacts> {
  byId ??= new Map(operationTable(contract().document).map((facts) => [facts.operationId, facts]));
  return byId;
}
