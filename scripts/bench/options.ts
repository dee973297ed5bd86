import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { choosePostgres, redacted, type PostgresChoice } from './postgres.js';

const USAGE = `usage: npm run bench -- [--scale 1] [--small-ratio 0.01] [--seed bench] [--duration 3] [--rounds 3]
  [--connections 10] [--warmup 0.5] [--out bench] [--work bench/work] [--server dist|tsx] [--max-profiles 40]
  [--only OperationId,...] [--compare <git revision>] [--postgres postgres://…|off] [--webhooks on|off] [--mcp on|off]
  [--tracing on|off]
Writes <out>/results.md with this run alone (git keeps the earlier ones); cached data sets, CPU profiles
and results.json go to <work>. --scale 1 is 1,000 companies, 1,000,000 MCP rows, 200,000 rebate codes,
100,000 bookings and 50,000 printouts; --small-ratio is the comparison scale, as a share of it.
--only measures those operations (a CSV one with its JSON one); --compare measures that revision's build
in the same rounds, on every engine measured (each its own copy of the full-scale data), with the target
CPU per request ≤ 1.05× the compared build's; --webhooks off skips the webhook measurement. The MCP measurement sends
PrintoutFirstPage and CreateMessageTemplate (those --only names, if it names any) through MCP and over HTTP in turn;
--mcp off skips it. The tracing measurement sends PrintoutFirstPage and CreateRebateCodeTransaction to a server
exporting its traces and to the usual one in turn; --tracing off skips it.
PostgreSQL: --postgres, else BENCH_POSTGRES_URL, else TEST_POSTGRES_URL; without any, only SQLite is measured (and the report says so).`;

export type BenchOptions = ReturnType<typeof parseOptions>;

export function parseOptions(argv: string[], root: string, env: Record<string, string | undefined> = process.env) {
  const fail = (message: string): never => {
    console.error(`${message}\n${USAGE}`);
    process.exit(2);
  };
  const options = {
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
    'max-profiles': { type: 'string', default: '40' },
    only: { type: 'string', default: '' },
    compare: { type: 'string' },
    postgres: { type: 'string' },
    webhooks: { type: 'string', default: 'on' },
    mcp: { type: 'string', default: 'on' },
    tracing: { type: 'string', default: 'on' },
    help: { type: 'boolean', default: false },
  } as const;
  const parse = () => parseArgs({ args: argv, strict: true, options }).values;
  let values!: ReturnType<typeof parse>;
  try {
    values = parse();
  } catch (err) {
    fail((err as Error).message);
  }
  if (values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  const number = (name: keyof typeof values, min: number, max: number, integer = false): number => {
    const value = Number(values[name]);
    if (!Number.isFinite(value) || value < min || value > max || (integer && !Number.isInteger(value))) {
      fail(`--${name} must be ${integer ? 'an integer' : 'a number'} from ${min} to ${max}`);
    }
    return value;
  };
  if (values.server !== 'dist' && values.server !== 'tsx') fail('--server must be dist or tsx');
  if (!/^[\w-]{1,40}$/.test(values.seed)) fail('--seed must be 1-40 letters, digits, - or _');
  if (values.webhooks !== 'on' && values.webhooks !== 'off') fail('--webhooks must be on or off');
  if (values.mcp !== 'on' && values.mcp !== 'off') fail('--mcp must be on or off');
  if (values.tracing !== 'on' && values.tracing !== 'off') fail('--tracing must be on or off');
  if (values.compare !== undefined && !/^[\w./~^-]{1,100}$/.test(values.compare)) fail('--compare takes a git revision (a commit, branch or HEAD~1)');
  let postgres: PostgresChoice = { skipped: '' };
  try {
    postgres = choosePostgres(values.postgres, env);
  } catch (err) {
    fail((err as Error).message);
  }
  return {
    scale: number('scale', 0.00001, 10),
    smallRatio: number('small-ratio', 0.0001, 1),
    seed: values.seed,
    /** seconds per measurement, and of warm-up per operation and server before the rounds */
    duration: number('duration', 0.1, 120),
    warmup: number('warmup', 0, 30),
    rounds: number('rounds', 1, 20, true),
    connections: number('connections', 1, 500, true),
    out: resolve(root, values.out),
    work: resolve(root, values.work),
    server: values.server as 'dist' | 'tsx',
    maxProfiles: number('max-profiles', 0, 50, true),
    /** ids of operations.ts; all when empty */
    only: values.only.split(',').map((id) => id.trim()).filter(Boolean),
    /** a git revision whose build is measured in the same rounds, side by side with this one */
    compare: values.compare,
    postgres,
    webhooks: values.webhooks === 'on',
    mcp: values.mcp === 'on',
    tracing: values.tracing === 'on',
  };
}

const quoted = (arg: string) => (/^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`);

/**
 * How a run was started, as a reader would type it again: the variable that named
 * PostgreSQL, if one did, and the bench's arguments; passwords left out.
 */
export function commandLine(argv: string[], postgres: PostgresChoice): string {
  const args = argv.map((arg, i) => (argv[i - 1] === '--postgres' && arg !== 'off' ? redacted(arg) : arg.startsWith('--postgres=') ? `--postgres=${redacted(arg.slice(11))}` : arg));
  const variable = 'server' in postgres && !postgres.from.startsWith('--') ? `${postgres.from}=${redacted(postgres.server)} ` : '';
  return `${variable}npm run bench${args.length > 0 ? ` -- ${args.map(quoted).join(' ')}` : ''}`;
}
