// The work no implementation of an operation can avoid: bare Fastify, one route per operation,
// running the very statements the API ran for it (recorded in-process, statements.ts) through
// the driver directly, each prepared once (a better-sqlite3 Statement; a named PostgreSQL
// statement), a write's in one transaction, and answering their rows serialized by
// fast-json-stringify. No validation, no auth, no mapping.
// `node --import tsx baseline-sql.ts <routes.json> <DATABASE_URL>`; listens on 127.0.0.1, a free port.
import { readFileSync } from 'node:fs';
import SQLite from 'better-sqlite3';
import Fastify from 'fastify';
import fastJson from 'fast-json-stringify';
import pg from 'pg';

export interface SqlRoute {
  path: string;
  write: boolean;
  statements: Array<{ sql: string; parameters: unknown[] }>;
}

type Rows = Array<Record<string, unknown>>;
type Run = () => Promise<Rows[]>;

const [routesFile, databaseUrl] = process.argv.slice(2);
const routes = JSON.parse(readFileSync(routesFile, 'utf8')) as SqlRoute[];

/** A fast-json-stringify schema for the rows each statement answered the first time. */
function schemaOf(results: Rows[]) {
  const typeOf = (value: unknown) =>
    value === null || value === undefined ? {} : typeof value === 'number' ? { type: ['number', 'null'] } : typeof value === 'string' ? { type: ['string', 'null'] } : {};
  const properties = Object.fromEntries(
    results.map((rows, i) => [`s${i}`, { type: 'array', items: { type: 'object', properties: Object.fromEntries(Object.entries(rows[0] ?? {}).map(([k, v]) => [k, typeOf(v)])) } }]),
  );
  return { type: 'object', properties };
}

function sqliteRunners(file: string): (route: SqlRoute) => Run {
  const sqlite = new SQLite(file);
  sqlite.pragma('busy_timeout = 5000');
  return (route) => {
    const statements = route.statements.map(({ sql, parameters }) => ({ statement: sqlite.prepare(sql), parameters }));
    const all = () => statements.map(({ statement, parameters }) => (statement.reader ? (statement.all(parameters) as Rows) : (statement.run(parameters), [])));
    const transaction = sqlite.transaction(all);
    return async () => (route.write ? transaction() : all());
  };
}

function postgresRunners(url: string): (route: SqlRoute) => Run {
  const pool = new pg.Pool({ connectionString: url, max: 10 });
  pool.on('error', () => {});
  let names = 0;
  return (route) => {
    const statements = route.statements.map(({ sql, parameters }) => ({ name: `bare_${names++}`, text: sql, values: parameters }));
    return async () => {
      const client = await pool.connect();
      try {
        if (route.write) await client.query('begin');
        const results: Rows[] = [];
        for (const statement of statements) results.push((await client.query(statement)).rows);
        if (route.write) await client.query('commit');
        return results;
      } catch (err) {
        if (route.write) await client.query('rollback').catch(() => {});
        throw err;
      } finally {
        client.release();
      }
    };
  };
}

const runnerOf = /^postgres(ql)?:/.test(databaseUrl) ? postgresRunners(databaseUrl) : sqliteRunners(databaseUrl.replace(/^file:/, ''));
const app = Fastify({ logger: false });
for (const route of routes) {
  const run = runnerOf(route);
  let serialize: ((value: unknown) => string) | undefined;
  app.route({
    method: ['GET', 'POST', 'PUT', 'DELETE'],
    url: route.path,
    handler: async (_request, reply) => {
      const results = await run();
      serialize ??= fastJson(schemaOf(results) as never);
      const body: Record<string, Rows> = {};
      results.forEach((rows, i) => (body[`s${i}`] = rows));
      return reply.header('content-type', 'application/json; charset=utf-8').send(serialize(body));
    },
  });
}
app.get('/__ready', async () => 'ready');
await app.listen({ port: 0, host: '127.0.0.1' });
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
