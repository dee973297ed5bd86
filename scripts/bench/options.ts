import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { choosePostgres, type PostgresChoice } from './postgres.js';

export interface BenchOptions {
  /** full scale: 1 = 1,000 companies, 1,000,000 MCP rows, 200,000 codes, 100,000 bookings, 50,000 printouts */
  scale: number;
  /** the comparison scale, as a fraction of `scale` (default 0.01: 1%) */
  smallRatio: number;
  seed: string;
  /** seconds per measurement */
  duration: number;
  rounds: number;
  connections: number;
  /** seconds of warm-up per operation and server before the rounds */
  warmup: number;
  /** where results.md and ratios.svg go */
  out: string;
  /** cached data sets, run copies, profiles, results.json */
  work: string;
  server: 'dist' | 'tsx';
  /** at most this many CPU profiles for missed targets */
  maxProfiles: number;
  /** measure only these operations (ids of operations.ts); all when empty */
  only: string[];
  /** a git revision whose build is measured in the same rounds, side by side with this one */
  compare?: string;
  /** the PostgreSQL server the API is also measured on, or why it is not */
  postgres: PostgresChoice;
  /** measure what webhook deliveries add to a write (webhooks.ts) */
  webhooks: boolean;
}

const USAGE = `usage: npm run bench -- [--scale 1] [--small-ratio 0.01] [--seed bench] [--duration 3] [--rounds 3]
  [--connections 10] [--warmup 0.5] [--out bench] [--work bench/work] [--server dist|tsx] [--max-profiles 12]
  [--only OperationId,...] [--compare <git revision>] [--postgres postgres://…|off] [--webhooks on|off]
PostgreSQL: --postgres, else BENCH_POSTGRES_URL, else TEST_POSTGRES_URL; without any, only SQLite is measured (and the report says so).`;

function revision(value: string): string {
  if (!/^[\w./~^-]{1,100}$/.test(value)) {
    console.error(`--compare takes a git revision (a commit, branch or HEAD~1)\n${USAGE}`);
    process.exit(2);
  }
  return value;
}

export function parseOptions(argv: string[], root: string, env: Record<string, string | undefined> = process.env): BenchOptions {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    options: {
      scale: { type: 'string', default: '1' },
      'small-ratio': { type: 'string', default: '0.01' },
      seed: { type: 'string', default: 'bench' },
      duration: { type: 'string', default: '3' },
      rounds: { type: 'string', default: '3' },
      connections: { type: 'string', default: '10' },
      warmup: { type: 'string', default: '0.5' },
      out: { type: 'string', default: 'bench' },
      work: { type: 'string', default: 'bench/work' },
      server: { type: 'string', default: 'dist' },
      'max-profiles': { type: 'string', default: '12' },
      only: { type: 'string', default: '' },
      compare: { type: 'string' },
      postgres: { type: 'string' },
      webhooks: { type: 'string', default: 'on' },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  const number = (name: keyof typeof values, min: number, max: number, integer = false): number => {
    const value = Number(values[name]);
    if (!Number.isFinite(value) || value < min || value > max || (integer && !Number.isInteger(value))) {
      console.error(`--${name} must be ${integer ? 'an integer' : 'a number'} from ${min} to ${max}\n${USAGE}`);
      process.exit(2);
    }
    return value;
  };
  if (values.server !== 'dist' && values.server !== 'tsx') {
    console.error(`--server must be dist or tsx\n${USAGE}`);
    process.exit(2);
  }
  if (!/^[\w-]{1,40}$/.test(values.seed!)) {
    console.error(`--seed must be 1-40 letters, digits, - or _\n${USAGE}`);
    process.exit(2);
  }
  if (values.webhooks !== 'on' && values.webhooks !== 'off') {
    console.error(`--webhooks must be on or off\n${USAGE}`);
    process.exit(2);
  }
  let postgres: PostgresChoice;
  try {
    postgres = choosePostgres(values.postgres, env);
  } catch (err) {
    console.error(`${(err as Error).message}\n${USAGE}`);
    process.exit(2);
  }
  return {
    scale: number('scale', 0.00001, 10),
    smallRatio: number('small-ratio', 0.0001, 1),
    seed: values.seed!,
    duration: number('duration', 0.1, 120),
    rounds: number('rounds', 1, 20, true),
    connections: number('connections', 1, 500, true),
    warmup: number('warmup', 0, 30),
    out: resolve(root, values.out!),
    work: resolve(root, values.work!),
    server: values.server,
    maxProfiles: number('max-profiles', 0, 50, true),
    only: values.only!.split(',').map((id) => id.trim()).filter(Boolean),
    ...(values.compare ? { compare: revision(values.compare) } : {}),
    postgres,
    webhooks: values.webhooks === 'on',
  };
}
