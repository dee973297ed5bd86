import type { Config } from './config.js';

/**
 * Whether the server's logs are written for a person: LOG_FORMAT `pretty`, or `auto` (the
 * default) while stdout is a terminal. Otherwise they stay pino's JSON, one object a line,
 * which files, pipes and log collectors read.
 */
export function prettyLogs(format: Config['LOG_FORMAT'], stdout: { isTTY?: boolean }): boolean {
  return format === 'pretty' || (format === 'auto' && stdout.isTTY === true);
}

/**
 * pino-pretty as the logger's stream, in this process: pino redacts (tracing/redaction.ts)
 * while it writes each JSON line, and only then does pino-pretty reformat that line, so
 * both forms hold the same, redacted, facts. Loaded only when wanted, so a JSON-logging
 * server does not pay for it at start-up. Writes synchronously so that the last lines
 * before an exit are not lost.
 */
export async function prettyLogStream(destination: number | NodeJS.WritableStream = 1): Promise<NodeJS.WritableStream> {
  const { default: pretty } = await import('pino-pretty');
  return pretty({ destination, sync: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname', singleLine: true });
}
