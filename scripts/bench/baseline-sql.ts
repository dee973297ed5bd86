// The work no implementation of an operation can avoid: bare Fastify, one route per operation,
// running the very statements the API ran for it (recorded in-process, statements.ts) through
// the driver directly, each prepared once (a better-sqlite3 Statement; a named PostgreSQL
// statement), a write's in one transaction, and answering their rows serialized by
// fast-json-stringify. No validation, no auth, no mapping.
// `node --import tsx baseline-sql.ts <routes.json> <DATABASE_URL>`; listens on 127.0.0.1, a free port.
// Started with the API server's V8 flags on its node command line (servers.ts, NODE_FLAGS), so
// that the baseline is measured as the API is.
import { readFileSync } from 'node:fs';
import SQLite from 'better-sqlite3';
import Fastify from 'fastify';
import fastJson from 'fast-json-stringify';
import pg from 'pg';
import type { SqlRoute, SqlStatement } from './statements.js';

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

/** A statement's values for this run: ids that earlier statements of the run made take the place of the recorded ones. */
function valuesFor(statement: SqlStatement, results: Rows[]): unknown[] {
  if (!statement.idOf) return statement.parameters;
  return statement.parameters.map((value, i) => {
    const from = statement.idOf![i];
    return from === null || from === undefined ? value : results[from]?.[0]?.id ?? value;
  });
}

/**
 * A route's runner: each call replays the next recorded call's statements (with that call's
 * values), in turn. Statements are prepared once per SQL text.
 */
function sqliteRunners(file: string): (route: SqlRoute) => Run {
  const sqlite = new SQLite(file);
  sqlite.pragma('busy_timeout = 5000');
  // The store's own settings (engines/sqlite.ts): what a commit and a foreign key cost is part of the work.
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('foreign_keys = ON');
  const prepared = new Map<string, SQLite.Statement>();
  const statementOf = (sql: string) => {
    let statement = prepared.get(sql);
    if (!statement) prepared.set(sql, (statement = sqlite.prepare(sql)));
    return statement;
  };
  return (route) => {
    const calls = route.variants.map((call) => call.map((recorded) => ({ recorded, statement: statementOf(recorded.sql) })));
    let next = 0;
    const replay = (call: (typeof calls)[number]) => {
      const results: Rows[] = [];
      for (const { recorded, statement } of call) {
        const values = valuesFor(recorded, results);
        results.push(statement.reader ? (statement.all(values) as Rows) : (statement.run(values), []));
      }
      return results;
    };
    const transaction = sqlite.transaction(replay);
    return async () => {
      const call = calls[next++ % calls.length];
      return route.write ? transaction(call) : replay(call);
    };
  };
}

function postgresRunners(url: string): (route: SqlRoute) => Run {
  const pool = new pg.Pool({ connectionString: url, max: 10 });
  pool.on('error', () => {});
  const names = new Map<string, string>();
  const nameOf = (sql: string) => {
    let name = names.get(sql);
    if (!name) names.set(sql, (name = `bare_${names.size}`));
    return name;
  };
  return (route) => {
    const calls = route.variants.map((call) => call.map((recorded) => ({ recorded, name: nameOf(recorded.sql) })));
    let next = 0;
    return async () => {
      const call = calls[next++ % calls.length];
      const client = await pool.connect();
      try {
        if (route.write) await client.query('begin');
        const results: Rows[] = [];
        for (const { recorded, name } of call) results.push((await client.query({ name, text: recorded.sql, values: valuesFor(recorded, results) })).rows);
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
  // Each recorded call runs once before the server listens: a statement that cannot be replayed
  // stops the baseline here, rather than letting it answer fast errors that would pass for its work.
  let first: Rows[] | undefined;
  for (let i = 0; i < route.variants.length; i++) {
    const results = await run().catch((err: Error) => {
      console.error(`baseline-sql: ${route.path} cannot run its statements: ${err.message}`);
      process.exit(1);
    });
    first ??= results;
  }
  const serialize = fastJson(schemaOf(first!) as never);
  app.route({
    method: ['GET', 'POST', 'PUT', 'DELETE'],
    url: route.path,
    handler: async (_request, reply) => {
      const results = await run();
      const body: Record<string, Rows> = {};
      results.forEach((rows, i) => (body[`s${i}`] = rows));
      return reply.header('content-type', 'application/json; charset=utf-8').send(serialize(body));
    },
  });
}
app.get('/__ready', async () => 'ready');
await app.listen({ port: 0, host: '127.0.0.1' });
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
