import { ENGINE_LABEL, enginesOf, type Engine } from './measure.js';
import { TARGETS, type OpSummary } from './summary.js';

const escape = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/**
 * A hand-written SVG bar chart: per operation one bar per engine, its throughput as a share
 * of bare Fastify's, with the read (60%) and write (40%) targets drawn as lines. Bars that
 * reach their target are solid, the others pale, so the misses show at a glance; SQLite's
 * bar is plain, PostgreSQL's hatched.
 */
export function ratiosChart(ops: OpSummary[], subtitle: string): string {
  const engines = ops[0] ? enginesOf(ops[0].engines) : (['sqlite'] as Engine[]);
  const left = 330, right = 150, top = 84, bar = 16, gap = 2, row = engines.length * (bar + gap) + 12;
  const width = 1040;
  const plot = width - left - right;
  const height = top + ops.length * row + 50;
  const ratios = ops.flatMap((o) => engines.map((e) => o.engines[e]!.ratioFastify));
  const max = Math.max(1, ...ratios.filter(Number.isFinite));
  const x = (ratio: number) => left + (Math.max(0, ratio) / max) * plot;
  const parts: string[] = [];
  parts.push(`<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="Helvetica, Arial, sans-serif" font-size="13">`);
  parts.push('<defs><pattern id="hatch" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)"><rect width="3" height="6" fill="#ffffff" fill-opacity="0.55"/></pattern></defs>');
  parts.push(`<rect width="100%" height="100%" fill="#ffffff"/>`);
  parts.push(`<text x="${left}" y="24" font-size="16" font-weight="bold">Throughput as a share of bare Fastify (same response bytes)</text>`);
  parts.push(`<text x="${left}" y="44" fill="#555">${escape(subtitle)}</text>`);
  for (let tick = 0; tick <= max + 1e-9; tick += 0.2) {
    parts.push(`<line x1="${x(tick)}" y1="${top - 8}" x2="${x(tick)}" y2="${top + ops.length * row}" stroke="#e5e5e5"/>`);
    parts.push(`<text x="${x(tick)}" y="${top + ops.length * row + 18}" text-anchor="middle" fill="#555">${Math.round(tick * 100)}%</text>`);
  }
  ops.forEach((op, i) => {
    const y0 = top + i * row;
    const goal = TARGETS[op.kind];
    const colour = op.kind === 'read' ? '#2e86de' : '#e67e22';
    parts.push(`<text x="${left - 10}" y="${y0 + (engines.length * (bar + gap)) / 2 + 5}" text-anchor="end">${escape(op.label)}</text>`);
    engines.forEach((engine, j) => {
      const s = op.engines[engine]!;
      const y = y0 + j * (bar + gap);
      const met = s.answer.ok && s.ratioFastify >= goal;
      const ratio = Number.isFinite(s.ratioFastify) ? s.ratioFastify : 0;
      const w = Math.max(1, x(ratio) - left).toFixed(1);
      parts.push(`<rect x="${left}" y="${y}" width="${w}" height="${bar}" fill="${colour}" fill-opacity="${met ? 1 : 0.35}" stroke="${colour}"/>`);
      if (engine === 'postgres') parts.push(`<rect x="${left}" y="${y}" width="${w}" height="${bar}" fill="url(#hatch)"/>`);
      parts.push(`<text x="${(x(ratio) + 6).toFixed(1)}" y="${y + bar - 3}" fill="#222">${Math.round(ratio * 100)}% ${met ? '✓' : '✗'}${engines.length > 1 ? ` ${ENGINE_LABEL[engine]}` : ''}</text>`);
    });
  });
  for (const [goal, name] of [[TARGETS.write, 'write target'], [TARGETS.read, 'read target']] as const) {
    parts.push(`<line x1="${x(goal)}" y1="${top - 14}" x2="${x(goal)}" y2="${top + ops.length * row}" stroke="#c0392b" stroke-width="2" stroke-dasharray="6 4"/>`);
    parts.push(`<text x="${x(goal)}" y="${top - 18}" text-anchor="middle" fill="#c0392b">${name} ${goal * 100}%</text>`);
  }
  const legendY = height - 14;
  parts.push(`<rect x="${left}" y="${legendY - 11}" width="12" height="12" fill="#2e86de"/><text x="${left + 18}" y="${legendY}">read</text>`);
  parts.push(`<rect x="${left + 70}" y="${legendY - 11}" width="12" height="12" fill="#e67e22"/><text x="${left + 88}" y="${legendY}">write</text>`);
  parts.push(`<text x="${left + 150}" y="${legendY}" fill="#555">solid = target met, pale = missed${engines.length > 1 ? '; upper bar SQLite, lower (hatched) PostgreSQL' : ''}</text>`);
  parts.push('</svg>');
  return `${parts.join('\n')}\n`;
}
