import { ENGINE_LABEL, type Engine } from './measure.js';

// Markdown tables for results.md, with the engines side by side: one column per engine
// measured, so a run without PostgreSQL has no empty PostgreSQL columns.

export interface Column<T> {
  title: string;
  /** numbers are right-aligned */
  right?: boolean;
  cell(row: T): string;
}

export function markdownTable<T>(columns: Column<T>[], rows: T[]): string[] {
  const escape = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
  return [
    `| ${columns.map((c) => escape(c.title)).join(' | ')} |`,
    `|${columns.map((c) => (c.right ? '---:' : '---')).join('|')}|`,
    ...rows.map((row) => `| ${columns.map((c) => escape(c.cell(row))).join(' | ')} |`),
  ];
}

/** One column per engine, titled "<Engine> <title>". */
export function perEngine<T>(engines: Engine[], title: string, cell: (row: T, engine: Engine) => string, right = true): Array<Column<T>> {
  return engines.map((engine) => ({ title: `${ENGINE_LABEL[engine]} ${title}`.trim(), right, cell: (row: T) => cell(row, engine) }));
}

export const n0 = (x: number) => (Number.isFinite(x) ? Math.round(x).toLocaleString('en-US') : '–');
export const n2 = (x: number) => (Number.isFinite(x) ? x.toFixed(2) : '–');
export const pct = (x: number) => (Number.isFinite(x) ? `${(x * 100).toFixed(0)}%` : '–');
export const times = (x: number) => (Number.isFinite(x) ? `${x.toFixed(2)}×` : '–');
export const mib = (kb: number) => (Number.isFinite(kb) && kb > 0 ? (kb / 1024).toFixed(0) : '–');

/** The figures of one side of a measurement in turns: medians over its rounds. */
export interface TurnFigures {
  rps: number;
  p50: number;
  p99: number;
  cpuUs: number;
}

/**
 * The columns of a measurement of two sides in turns (over MCP and over HTTP, tracing on and
 * off): each side's req/s, p50, p99 and CPU per request, then the CPU ratio of the second to
 * the first.
 */
export function turnColumns<T>(labels: [string, string], figures: (row: T) => [TurnFigures, TurnFigures], ratio: { title: string; of: (row: T) => number }): Array<Column<T>> {
  const pair = (title: string, pick: (f: TurnFigures) => number, format: (x: number) => string): Array<Column<T>> =>
    labels.map((label, side) => ({ title: `${label} ${title}`, right: true, cell: (row: T) => format(pick(figures(row)[side])) }));
  return [
    ...pair('req/s', (f) => f.rps, n0),
    ...pair('p50 ms', (f) => f.p50, n2),
    ...pair('p99 ms', (f) => f.p99, n2),
    ...pair('CPU µs', (f) => f.cpuUs, n0),
    { title: ratio.title, right: true, cell: (row: T) => times(ratio.of(row)) },
  ];
}
