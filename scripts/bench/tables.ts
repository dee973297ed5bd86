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
