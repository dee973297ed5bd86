import { redacted, type PostgresChoice } from './postgres.js';

const quoted = (arg: string) => (/^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`);

/**
 * How a run was started, as a reader would type it again for results.md: the variable that
 * named PostgreSQL, if one did, and the bench's arguments; passwords left out.
 */
export function commandLine(argv: string[], postgres: PostgresChoice): string {
  const args = argv.map((arg, i) => (argv[i - 1] === '--postgres' && arg !== 'off' ? redacted(arg) : arg.startsWith('--postgres=') ? `--postgres=${redacted(arg.slice(11))}` : arg));
  const variable = 'server' in postgres && !postgres.from.startsWith('--') ? `${postgres.from}=${redacted(postgres.server)} ` : '';
  return `${variable}npm run bench${args.length > 0 ? ` -- ${args.map(quoted).join(' ')}` : ''}`;
}
