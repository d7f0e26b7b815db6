import { formatAction, formatCall, formatPending } from './observed.js';
import type { TurnObservation } from './turn-observation.js';

/** What happened in a turn, for a failing case's report. */
export function describeTurn(t: TurnObservation): string {
  const ids = [...new Set(t.deliveries.map((d) => d.turnId).filter(Boolean))];
  const lines = [
    `  turn ${t.index + 1} ${JSON.stringify(t.text.slice(0, 60))} (contact ${t.contactId}, kind ${t.kind})`,
    `    deliveries: ${t.deliveries.map((d) => `${d.status || d.error} ${Math.round(d.ms)} ms${d.duplicateOf ? ' dup' : ''}${d.deferred ? ' deferred' : ''}${d.outcome ? ` ${d.outcome}` : ''}`).join(', ') || 'none'}${ids.length ? `; turn ids ${ids.join(', ')}` : ''}${t.targetRowId ? `; row ${t.targetRowId}` : ''}`,
    `    decision: ${t.decision ?? '(no record)'}${t.decisionReason ? ` — ${t.decisionReason}` : ''}`,
    `    ${t.form === 'text' || t.form === 'press' ? 'reply' : 'told the contact'}: ${JSON.stringify(t.replyText)}${t.deliveries.length > 1 ? `  (every delivery: ${t.deliveries.map((d) => JSON.stringify(d.replyText ?? d.error ?? null)).join(' | ')})` : ''}`,
    `    staged: [${t.staged.map(formatAction).join(', ')}]  committed: [${t.committed.map(formatAction).join(', ')}]`,
    `    ManyChat calls: [${t.apiCalls.map(formatCall).join(', ')}]${t.outbox ? `  outbox: ${t.outbox.messages.map((m) => `${m.state} [${m.attempts.join(',')}]`).join('; ') || 'no QStash message'}${t.outbox.timedOut ? ' (timed out)' : ''}` : ''}`,
    `    model calls: ${t.modelCalls} [${t.modelDetail.map((m) => `${m.source} ${m.aborted ? 'aborted' : m.status} ${m.servedMs} ms`).join(', ')}]${t.scripted ? `  scripted latencies ${t.scripted.latencies.join('+')} ms (budget ${t.scripted.budgetMs} ms, ${t.scripted.path})` : ''}`,
  ];
  if (t.pending.length)
    lines.push(`    pending rows created: [${t.pending.map((p) => `${p.id} ${formatPending(p)}`).join(', ')}]`);
  if (Object.keys(t.rows).length)
    lines.push(
      `    named rows: ${Object.entries(t.rows)
        .map(([n, s]) => `${n}=${s ?? 'missing'}`)
        .join(', ')}`,
    );
  if (t.notes.length) lines.push(`    notes: ${t.notes.join(' | ')}`);
  return lines.join('\n');
}
