import net from 'node:net';
import type { ValidateFunction } from 'ajv';
import { parse as parseCsv } from 'csv-parse/sync';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { buildApp } from '../src/app.js';
import { loadConfig, type Config } from '../src/config.js';
import { contract, deref, type OperationInfo } from './contract-operations.js';
import { COMPANY_A } from './fixtures.js';
import { createServerAjv } from '../src/contract/ajv.js';
import { parseJsv } from '../src/contract/jsv.js';
import { openStore, type Store } from '../src/store/db.js';
import { freshDatabase } from './test-store.js';
import { importData } from '../src/import/import.js';
import type { ResolveAll } from '../src/webhooks/send.js';
import { TEST_SECRET, WRITE, callRequest, type CallOptions, type Caller, type Method } from './requests.js';

// One place for what tests share: the app (here), requests and callers (requests.ts), the
// "nothing changed" snapshot (snapshot.ts), the refusal checks (refusals.ts) and the ids
// of the test data (fixtures.ts).
export { READ, SUPERADMIN, TEST_SECRET, WRITE, bearer, token, type CallOptions, type Caller, type Method } from './requests.js';
export { snapshot, tableRows, type Snapshot } from './snapshot.js';
export { badRequest, expectRefusal, expectRefused, type Refusal, type ResponseStatus } from './refusals.js';

export function testConfig(overrides: Partial<Record<keyof Config, unknown>> = {}): Config {
  return loadConfig(
    {
      DATABASE_URL: 'file::memory:',
      AUTH_JWT_SECRET: TEST_SECRET,
      OAUTH_SECRET: TEST_SECRET,
      LOG_LEVEL: 'silent',
      DEMO_DATA: false,
      // Webhooks are recorded but not delivered unless a test is about deliveries: the test
      // data's endpoints name hosts off this machine.
      WEBHOOK_DELIVERY: false,
      // Rate limits are off unless a test is about them.
      RATE_LIMIT_MAX: 0,
      REBATE_LOOKUP_RATE_LIMIT_MAX: 0,
      // So is load shedding: a test's burst of requests on a loaded machine is a backlog of its own.
      SHED_QUEUE_WAIT_MS: 0,
      ...overrides,
    },
    {},
  );
}

// ---- every response a test sees is checked against the contract ----

// The server's Ajv (JSON Schema 2020-12, the server's formats), taking each answer as it is.
const ajv = createServerAjv({ useDefaults: false, verbose: false });
const validators = new Map<string, ValidateFunction>();

// An operation's own path, or one of ServiceStack's predefined routes for it, with an optional format suffix.
const routes = [...contract().operations.values()].map((op) => ({
  op,
  pattern: new RegExp(
    `^(?:${op.path.replace(/\{[^}]+\}/g, '[^/]+')}|/(?:api|json/reply)/${op.operationId})(?:\\.(?:csv|json))?/?$`,
    'i',
  ),
}));

function validatorFor(key: string, schema: unknown): ValidateFunction {
  const known = validators.get(key);
  if (known) return known;
  const validate = ajv.compile(schema as object);
  validators.set(key, validate);
  return validate;
}

const errorSchema = deref(contract().document, { $ref: '#/components/schemas/ErrorResponse' });

/** What assertContract reads of a response: an injected one, or one a client received. */
export type ContractResponse = Pick<LightMyRequestResponse, 'statusCode' | 'headers' | 'body' | 'json'>;

/**
 * What is wrong with a CSV answer, if anything. The contract declares JSON alone and marks
 * the operations that also speak CSV with `x-csv`; their CSV carries the fields of the JSON
 * schema of the same status, so its header names properties of that schema (of its item,
 * as an envelope is written as its Results rows), in the schema's order, and an error is
 * one ResponseStatus cell holding a valid ResponseStatus in JSV.
 */
function csvProblem(op: OperationInfo, declared: any, statusCode: number, text: string): string | undefined {
  if (!op.csv) return `text/csv answered, but ${op.operationId} has no x-csv`;
  let rows: string[][];
  try {
    rows = parseCsv(text, { bom: true, relax_column_count: false, skip_empty_lines: true });
  } catch (err) {
    return `the CSV does not parse: ${(err as Error).message}`;
  }
  const [header, ...data] = rows;
  if (!header) return 'the CSV has no header row';
  if (statusCode >= 400) {
    if (header.join() !== 'ResponseStatus' || data.length !== 1) return `an error is not one ResponseStatus cell: ${header.join()}`;
    let status: unknown;
    try {
      status = parseJsv(data[0][0]);
    } catch (err) {
      return `the ResponseStatus cell is not JSV: ${(err as Error).message}`;
    }
    const validate = validatorFor('error', errorSchema);
    if (!validate({ ResponseStatus: status })) return `the ResponseStatus cell is not a ResponseStatus: ${ajv.errorsText(validate.errors)}`;
    return undefined;
  }
  const schema = declared.content?.['application/json']?.schema;
  const columns = Object.keys((schema?.properties?.Results?.items ?? schema)?.properties ?? {});
  const inOrder = columns.filter((column) => header.includes(column));
  if (header.length === 0 || inOrder.join() !== header.join()) return `the CSV columns ${header.join()} are not fields of ${columns.join()}, in order`;
  return undefined;
}

/**
 * Throws when a response is not one the contract allows: the operation's declared
 * status (or `default`), the declared media type, and a body valid against the schema
 * (a CSV one as `csvProblem` says). Routes outside the contract must answer errors in the
 * ResponseStatus shape.
 */
export function assertContract(method: string, url: string, response: ContractResponse): void {
  const path = url.split('?')[0];
  const type = String(response.headers['content-type'] ?? '');
  const route = routes.find((r) => r.op.method === method.toUpperCase() && r.pattern.test(path));
  const fail = (why: string) => {
    throw new Error(`${method} ${url} → ${response.statusCode}: ${why}\n${response.body.slice(0, 2000)}`);
  };
  if (!route) {
    if (response.statusCode >= 400 && type.startsWith('application/json')) {
      const validate = validatorFor('error', errorSchema);
      if (!validate(response.json())) fail(`error body is not a ResponseStatus: ${ajv.errorsText(validate.errors)}`);
    }
    return;
  }
  const op = route.op;
  const responses = deref(contract().document, contract().document.paths[op.path][op.method.toLowerCase()].responses);
  const declared = responses[String(response.statusCode)] ?? responses.default;
  if (!declared) fail(`status ${response.statusCode} is not declared by ${op.operationId}`);
  const media = type.split(';')[0].trim();
  if (media === 'text/csv') {
    const problem = csvProblem(op, declared, response.statusCode, response.body);
    if (problem) fail(problem);
    return;
  }
  if (media !== 'application/json') fail(`unexpected media type ${type}`);
  const schema = declared.content?.['application/json']?.schema;
  if (!schema) fail('no JSON schema declared');
  const validate = validatorFor(`${op.operationId} ${response.statusCode}`, schema);
  if (!validate(response.json())) fail(`body does not match the contract: ${ajv.errorsText(validate.errors)}`);
}

export interface TestApp {
  app: FastifyInstance;
  store: Store;
  config: Config;
  /** app.inject, with every response checked against the contract */
  inject(options: InjectOptions): Promise<LightMyRequestResponse>;
  /**
   * A request through `inject`: `api.call('DELETE', '/tags/10')` as the app's default caller,
   * `{ as: [READ] }` with other roles, `{ as: null }` with no credentials, `{ body }` or
   * `{ csv }` with a body (see CallOptions in requests.ts).
   */
  call(method: Method, url: string, options?: CallOptions): Promise<LightMyRequestResponse>;
}

/**
 * Builds the app on a fresh store of the engine under test (test-store.ts), optionally loaded with a data file
 * (docs/importing.md), and closes both when the test ends. `as` and `company` are the
 * default caller of `call`: the write role of company A unless given.
 */
export async function buildTestApp(
  t: { teardown(fn: () => unknown): void },
  options: {
    data?: unknown;
    config?: Partial<Record<keyof Config, unknown>>;
    as?: Caller;
    company?: string;
    /** how webhook deliveries resolve host names (buildApp's resolveHost) */
    resolveHost?: ResolveAll;
    /** how new rebate codes draw their signs (buildApp's generateSign) */
    generateSign?: () => string;
  } = {},
): Promise<TestApp> {
  const database = await freshDatabase();
  const config = testConfig({ DATABASE_URL: database.url, ...options.config });
  const store = await openStore(config.DATABASE_URL);
  if (options.data) await importData(store, options.data);
  const app = await buildApp(config, { store, resolveHost: options.resolveHost, generateSign: options.generateSign });
  t.teardown(async () => {
    await app.close();
    await store.close();
    await database.drop();
  });
  const defaults = { as: options.as === undefined ? [WRITE] : options.as, company: options.company ?? COMPANY_A };
  const inject = async (injectOptions: InjectOptions) => {
    const response = await app.inject(injectOptions);
    assertContract(String(injectOptions.method ?? 'GET'), String(injectOptions.url ?? '/'), response);
    return response;
  };
  return {
    app,
    store,
    config,
    inject,
    async call(method, url, callOptions = {}) {
      return inject(await callRequest(method, url, callOptions, defaults));
    },
  };
}

/**
 * The app on a fresh store of the engine under test, writing its logs to `logStream` (tests
 * that read what the server logs), closed with its store when the test ends.
 */
export async function buildLoggedApp(
  t: { teardown(fn: () => unknown): void },
  logStream: NodeJS.WritableStream,
  config: Partial<Record<keyof Config, unknown>>,
): Promise<{ app: FastifyInstance; store: Store }> {
  const database = await freshDatabase();
  const store = await openStore(database.url);
  const app = await buildApp(testConfig({ ...config, DATABASE_URL: database.url }), { store, logStream });
  t.teardown(async () => {
    await app.close();
    await store.close();
    await database.drop();
  });
  return { app, store };
}

/** Sends raw bytes to a server on 127.0.0.1 and resolves with all it answered once it closes. */
export function rawExchange(port: number, bytes: string): Promise<string> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    let answer = '';
    socket.on('data', (chunk) => (answer += chunk.toString()));
    socket.on('error', () => {});
    socket.on('close', () => resolve(answer));
    socket.write(bytes);
  });
}
