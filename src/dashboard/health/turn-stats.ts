import type { TurnRecord } from '../../../core/turn-record.js';

/**
 * What the Health page shows, from the tenant's newest turn records. The turn kinds are the
 * eval runner's (evals/turn-kind.ts; the app may not import evals, so the rule is restated here):
 * no tool · staging only · read then reply · deferred · other.
 */
export type TurnKind = 'no-tool' | 'staging-only' | 'read-then-reply' | 'deferred' | 'other';
export const TURN_KINDS: TurnKind[] = ['no-tool', 'staging-only', 'read-then-reply', 'deferred', 'other'];

export function turnKindOf(record: Pick<TurnRecord, 'steps' | 'decision' | 'deferred'>): TurnKind {
  if (record.deferred) return 'deferred';
  if (!record.steps.length || record.decision === 'error') return 'other';
  const calls = record.steps.flatMap((s) => s.toolCalls).filter((c) => c.toolName !== 'reply');
  const results = record.steps.flatMap((s) => s.toolResults).filter((r) => r.toolName !== 'reply');
  if (!calls.length) return 'no-tool';
  if (results.some((r) => r.status === 'ok' || r.status === 'plain')) return 'read-then-reply';
  if (results.length === calls.length && results.every((r) => r.status === 'staged')) return 'staging-only';
  return 'other';
}

/** Nearest-rank percentile of sorted values (0 for none). */
export function percentile(sorted: number[], p: number): number {
  if (!sorted.length) return 0;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

export interface HealthStats {
  turns: number;
  byKind: { kind: TurnKind; count: number; p50: number; p95: number }[];
  deferredShare: number;
  decisions: Record<TurnRecord['decision'], number>;
  /** Per guardrail: how many turns it vetoed and escalated. */
  byGuardrail: { guardrail: string; veto: number; escalate: number }[];
}

export function healthStats(records: TurnRecord[]): HealthStats {
  const latencies = new Map<TurnKind, number[]>(TURN_KINDS.map((k) => [k, []]));
  const decisions: HealthStats['decisions'] = { pass: 0, veto: 0, escalate: 0, error: 0 };
  const guardrails = new Map<string, { veto: number; escalate: number }>();
  let deferred = 0;
  for (const r of records) {
    latencies.get(turnKindOf(r))!.push(r.timings.totalMs);
    decisions[r.decision] = (decisions[r.decision] ?? 0) + 1;
    if (r.deferred) deferred++;
    for (const v of r.verdicts) {
      if (v.outcome === 'pass') continue;
      const g = guardrails.get(v.guardrail) ?? { veto: 0, escalate: 0 };
      g[v.outcome]++;
      guardrails.set(v.guardrail, g);
    }
  }
  return {
    turns: records.length,
    byKind: TURN_KINDS.map((kind) => {
      const sorted = [...latencies.get(kind)!].sort((a, b) => a - b);
      return { kind, count: sorted.length, p50: percentile(sorted, 50), p95: percentile(sorted, 95) };
    }),
    deferredShare: records.length ? deferred / records.length : 0,
    decisions,
    byGuardrail: [...guardrails]
      .map(([guardrail, g]) => ({ guardrail, ...g }))
      .sort((a, b) => b.veto + b.escalate - (a.veto + a.escalate) || (a.guardrail < b.guardrail ? -1 : 1)),
  };
}
