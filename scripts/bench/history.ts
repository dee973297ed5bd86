// bench/results.md keeps every recorded run, newest first: a run is a `## Run of …` section,
// written whole by `npm run bench`, and earlier sections are kept as they were, so figures
// from another day stay readable beside today's (and comparable only with care).

export const TITLE = '# Benchmark results';
export const RUN_HEADING = '## Run of ';

const INTRO = [
  TITLE,
  '',
  'Written by `npm run bench`, newest run first; each run keeps its own settings, command and figures. Absolute figures depend',
  'on the machine and on what else ran on it; the ratios measured within one run (against the bare baselines, between the',
  'engines) are what compare across runs.',
].join('\n');

/**
 * The results file with `run` (a `## Run of …` section) on top of the runs `previous` holds.
 * An earlier run's chart line is left out: ratios.svg is redrawn by every run, so it no
 * longer shows that run.
 */
export function withEarlierRuns(run: string, previous: string | undefined): string {
  if (!run.startsWith(RUN_HEADING)) throw new Error(`a run section starts with "${RUN_HEADING}"`);
  const at = previous?.search(new RegExp(`^${RUN_HEADING}`, 'm')) ?? -1;
  const earlier = at < 0 ? '' : previous!.slice(at).split('\n').filter((line) => !/^!\[[^\]]*\]\(ratios\.svg\)$/.test(line)).join('\n');
  return `${INTRO}\n\n${run.trimEnd()}\n${earlier ? `\n${earlier.trimEnd()}\n` : ''}`;
}
