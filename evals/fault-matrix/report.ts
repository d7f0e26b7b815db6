import type { RowResult } from './row.js';

/**
 * The matrix as a Markdown table (the README quotes it): per row, what the webhook answered, what
 * was performed (by kind), unknown, dead, lost, duplicated, and what the row expected. Notes
 * (what the row saw on the way, why a row is not as expected) follow the table.
 */
export function renderTable(results: RowResult[], totalSeconds: number, workerErrors: string[]): string {
  const lines = [
    '| row | webhook answered | performed | unknown | dead | lost | duplicated | expected | ok |',
    '|---|---|---|---|---|---|---|---|---|',
  ];
  for (const r of results) {
    const o = r.outcome;
    const cell = (n: number | undefined) => (n === undefined ? '—' : String(n));
    const performed = o
      ? `${o.performed}${o.performed ? ` (${o.performedKinds})` : ''}${o.repeats ? ` +${o.repeats} idempotent repeat` : ''}`
      : '—';
    lines.push(
      `| ${r.name} | ${r.webhook} | ${performed} | ${cell(o?.unknown)} | ${cell(o?.dead)} | ${cell(o?.lost)} | ${cell(o?.duplicated)} | ${r.expected.says} | ${r.ok ? '✓' : '✗'} |`,
    );
  }
  const lost = results.reduce((n, r) => n + (r.outcome?.lost ?? 0), 0);
  const duplicated = results.reduce((n, r) => n + (r.outcome?.duplicated ?? 0), 0);
  lines.push(
    '',
    `${results.length} rows in ${Math.round(totalSeconds)} s; ${results.filter((r) => r.ok).length} as expected; lost ${lost}, duplicated ${duplicated}.`,
  );
  const notes = results.filter((r) => r.notes.length).map((r) => `- ${r.name}: ${r.notes.join('; ')}`);
  if (notes.length) lines.push('', 'Notes:', ...notes);
  if (workerErrors.length)
    lines.push(
      '',
      `Worker error lines (${workerErrors.length}, distinct):`,
      ...workerErrors.map((e) => `- ${e.slice(0, 200)}`),
    );
  return `${lines.join('\n')}\n`;
}
