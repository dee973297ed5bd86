import { Writable } from 'node:stream';
import { stripVTControlCharacters } from 'node:util';
import t from 'tap';
import { buildApp } from '../../src/app.js';
import { ConfigError, loadConfig } from '../../src/config.js';
import { prettyLogs, prettyLogStream } from '../../src/log-output.js';
import { openStore } from '../../src/store/db.js';
import { testConfig } from '../helper.js';
import { startServer } from '../robustness/server-process.js';
import { freshDatabase } from '../test-store.js';

// The server's logs: readable lines for a person at a terminal, pino's JSON lines for
// everything else (LOG_FORMAT), redacted alike in both forms.

/** A line pino wrote as JSON, rather than pino-pretty as text. */
function isJson(line: string): boolean {
  try {
    JSON.parse(line);
    return true;
  } catch {
    return false;
  }
}

const TERMINAL = { isTTY: true };
const PIPE = { isTTY: false };

t.test('LOG_FORMAT auto (the default) is readable on a terminal and JSON otherwise; json and pretty hold everywhere', async (t) => {
  t.equal(loadConfig({}, {}).LOG_FORMAT, 'auto');
  t.equal(prettyLogs('auto', TERMINAL), true);
  t.equal(prettyLogs('auto', PIPE), false);
  t.equal(prettyLogs('auto', {}), false, 'a stream that is no terminal at all (a file)');
  t.equal(prettyLogs('json', TERMINAL), false);
  t.equal(prettyLogs('pretty', PIPE), true);
});

t.test('a LOG_FORMAT other than auto, json or pretty stops start-up naming the variable', async (t) => {
  let refused: unknown;
  try {
    loadConfig({}, { LOG_FORMAT: 'yaml' });
  } catch (err) {
    refused = err;
  }
  t.type(refused, ConfigError);
  t.match((refused as Error).message, /LOG_FORMAT/);
});

t.test('readable logs are redacted as the JSON logs are: no credentials, no query values', async (t) => {
  let text = '';
  const capture = new Writable({ write: (chunk, _encoding, done) => {
    text += chunk.toString();
    done();
  } });
  const database = await freshDatabase();
  const config = testConfig({ DATABASE_URL: database.url, LOG_LEVEL: 'info' });
  const store = await openStore(config.DATABASE_URL);
  const app = await buildApp(config, { store, logStream: await prettyLogStream(capture) });
  t.teardown(async () => {
    await app.close();
    await store.close();
    await database.drop();
  });
  await app.inject({ method: 'GET', url: '/categories?Take=1&jwt=query-secret&CustomerEmail=private%40example.org' });
  // What the error handlers log: the URL of a failed request, and the raw bytes Node attaches to a malformed one.
  const malformed = Object.assign(new Error('malformed request'), { rawPacket: Buffer.from('Authorization: Bearer header-secret') });
  app.log.error({ url: '/tags/1?jwt=url-secret', err: malformed }, 'request failed');

  const lines = stripVTControlCharacters(text).split('\n').filter(Boolean);
  t.ok(lines.length >= 3);
  t.same(lines.filter(isJson), [], 'no line is JSON');
  t.match(text, /INFO.*incoming request/);
  t.match(text, /\/categories\?Take=\[redacted\]/);
  t.match(text, /ERROR: request failed/);
  t.match(text, /"url":"\/tags\/1"/);
  t.match(text, /"rawPacket": ?"\[redacted\]"/);
  t.notMatch(text, /query-secret|private|url-secret|header-secret|Authorization/);
});

t.test('the server process: JSON lines when its stdout is not a terminal, readable lines with LOG_FORMAT=pretty', async (t) => {
  const env = { DATABASE_URL: 'file::memory:', DEMO_DATA: 'false', LOG_LEVEL: 'info' };
  const json = await startServer(env);
  t.equal((await fetch(`${json.url}/health`)).status, 200);
  t.equal(await json.stop(), 0);
  const jsonLines = json.logs().split('\n').filter(Boolean);
  t.ok(jsonLines.length >= 3);
  for (const line of jsonLines) t.match(JSON.parse(line), { level: Number, msg: String }, line);

  const pretty = await startServer({ ...env, LOG_FORMAT: 'pretty' });
  t.equal((await fetch(`${pretty.url}/health`)).status, 200);
  t.equal(await pretty.stop(), 0);
  const text = stripVTControlCharacters(pretty.logs());
  t.match(text, /^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: Server listening at http:\/\/127\.0\.0\.1:\d+$/m);
  t.match(text, /INFO: request completed/);
  t.match(text, /INFO: closing .*SIGTERM/, 'the last line before exit is written');
  t.same(text.split('\n').filter(isJson), [], 'no line is JSON');
});
