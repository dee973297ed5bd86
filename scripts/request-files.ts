// `npm run request-files -- [OperationId] [--max N] [--functions]`
// Lists the src files V8 coverage shows running for ONE warm request of an operation, with
// their line counts. Exits 1 when there are more than --max files or a file is over 250
// lines (so merging files cannot shrink the count). Builds the app in-process on an
// in-memory SQLite store holding the demo data, as the tests do (WEBHOOK_DELIVERY off, and
// no load shedding: a request is admitted, as every one is, but never shed).
import { readFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import type { InjectOptions } from 'fastify';
import { buildApp } from '../src/app.js';
import { mintToken } from '../src/auth/token.js';
import { loadConfig } from '../src/config.js';
import { loadDemoData } from '../src/import/demo-data.js';
import { openStore } from '../src/store/db.js';
import { DEMO_COMPANY_A } from '../src/store/demo-data.js';

export const DEFAULT_OPERATION = 'CreateRebateCodeTransaction';
export const MAX_LINES = 250;
const WARM_UPS = 40;
const SECRET = 'request-files-secret-of-sixteen-chars';
const root = fileURLToPath(new URL('../', import.meta.url));
const srcUrl = pathToFileURL(`${root}src/`).href;

/** One request per operation, on the demo data; each must answer 200 every time it is sent. */
const REQUESTS: Record<string, InjectOptions> = {
  // VALUE1000 (id 103) holds 1000: 1 off per request leaves plenty for the warm-ups.
  CreateRebateCodeTransaction: {
    method: 'POST',
    url: '/rebatecodes/transactions',
    payload: { RebateCodeId: 103, Amount: 1, Usage: 0, ChangeType: 'Decrease' },
  },
  GetRebateCodeBySign: {
    method: 'GET',
    url: `/rebatecodes/getbysign?CompanyId=${DEMO_COMPANY_A}&RebateCodeSign=VALUE1000&ServiceId=101&IncludeConnectedServices=true`,
  },
  BillingMethodQuery: { method: 'GET', url: '/billing/methods' },
  CategoryQuery: { method: 'GET', url: '/categories' },
};

export interface RequestFile {
  /** relative to the repository root, e.g. src/app.ts */
  file: string;
  lines: number;
  /** the names of the functions that ran (anonymous ones as `(anonymous)`) */
  functions: string[];
}

const lineCount = (text: string) => text.split('\n').length - (text.endsWith('\n') ? 1 : 0);

/** The src files with a function that ran during one warm request of `operationId`, sorted. */
export async function requestFiles(operationId = DEFAULT_OPERATION): Promise<RequestFile[]> {
  const request = REQUESTS[operationId];
  if (!request) throw new Error(`no request known for ${operationId}; known: ${Object.keys(REQUESTS).join(', ')}`);
  // The tests' configuration (test/helper.ts testConfig), with no environment read.
  const config = loadConfig(
    { DATABASE_URL: 'file::memory:', AUTH_JWT_SECRET: SECRET, LOG_LEVEL: 'silent', DEMO_DATA: false, WEBHOOK_DELIVERY: false, SHED_QUEUE_WAIT_MS: 0, RATE_LIMIT_MAX: 0, REBATE_LOOKUP_RATE_LIMIT_MAX: 0 },
    {},
  );
  const store = await openStore(config.DATABASE_URL);
  await loadDemoData(store);
  const app = await buildApp(config, { store });
  const token = await mintToken(SECRET, { companyId: DEMO_COMPANY_A, roles: ['bookingsupplier-administrator-write'] });
  const send = async () => {
    const response = await app.inject({ ...request, headers: { authorization: `Bearer ${token}` } });
    if (response.statusCode !== 200) throw new Error(`${operationId} answered ${response.statusCode}: ${response.body.slice(0, 500)}`);
  };
  const session = new Session();
  session.connect();
  try {
    // Counting starts before the warm-up, so code V8 recompiles for counting is warm too.
    await session.post('Profiler.enable');
    await session.post('Profiler.startPreciseCoverage', { callCount: true, detailed: true });
    for (let i = 0; i < WARM_UPS; i++) await send();
    await session.post('Profiler.takePreciseCoverage'); // resets the counters
    await send();
    await new Promise((resolve) => setImmediate(resolve)); // what the request queued, but no timers
    const { result } = await session.post('Profiler.takePreciseCoverage');
    const ran = result.filter((script) => script.url.startsWith(srcUrl) && script.functions.some((fn) => fn.ranges[0]?.count > 0));
    const byFile = new Map<string, Set<string>>();
    for (const script of ran) {
      const path = fileURLToPath(script.url.split('?')[0]);
      const names = byFile.get(path) ?? byFile.set(path, new Set()).get(path)!;
      for (const fn of script.functions) if (fn.ranges[0]?.count > 0) names.add(fn.functionName || '(anonymous)');
    }
    return [...byFile]
      .map(([path, names]) => ({ file: relative(root, path), lines: lineCount(readFileSync(path, 'utf8')), functions: [...names] }))
      .sort((a, b) => (a.file < b.file ? -1 : 1));
  } finally {
    // Only when this script started counting: NODE_V8_COVERAGE (tap's coverage) needs it on.
    if (!process.env.NODE_V8_COVERAGE) await session.post('Profiler.stopPreciseCoverage');
    session.disconnect();
    await app.close();
    await store.close();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { values, positionals } = parseArgs({ options: { max: { type: 'string' }, functions: { type: 'boolean' } }, allowPositionals: true });
  const operationId = positionals[0] ?? DEFAULT_OPERATION;
  const max = values.max === undefined ? undefined : Number(values.max);
  if (max !== undefined && !Number.isInteger(max)) throw new Error('--max must be an integer');
  const files = await requestFiles(operationId);
  for (const { file, lines, functions } of files) {
    console.log(`${String(lines).padStart(5)}  ${file}${lines > MAX_LINES ? `  (over ${MAX_LINES} lines)` : ''}`);
    if (values.functions) console.log(`         ${functions.join(', ')}`);
  }
  console.log(`${files.length} src files ran for one warm ${operationId} request.`);
  const long = files.filter((f) => f.lines > MAX_LINES);
  if (long.length) console.error(`${long.length} file(s) over ${MAX_LINES} lines.`);
  if (max !== undefined && files.length > max) console.error(`${files.length} files is more than --max ${max}.`);
  process.exitCode = long.length || (max !== undefined && files.length > max) ? 1 : 0;
}
