import type { ChangeKind, ReplayedTurn } from './replay-turn.js';

export interface ReplaySummary {
  replayed: number;
  /** Turns with at least one change of outcome (turns that need a model are not counted). */
  changed: number;
  byKind: Partial<Record<ChangeKind, number>>;
  /** Decision moves, `pass→veto`: count. */
  decisions: Record<string, number>;
  /** Turns whose request changed and that no model could answer. */
  needsModel: number;
  /** Model calls answered by the recording, and by the configured model. */
  answeredFromRecording: number;
  answeredByModel: number;
  /** Turns whose first request lists the tools in another order (or another set). */
  toolListChanged: number;
  modelCalls: { recorded: number; replayed: number };
  /** Turn time, recorded and as the replay estimates it (replay-turn.ts's TurnLatency): p50 and p95 in ms. */
  latency: { recorded: Percentiles; replayed: Percentiles };
}

export interface Percentiles {
  p50: number;
  p95: number;
}

export interface ReplayReport {
  tenantId: string;
  turns: ReplayedTurn[];
  summary: ReplaySummary;
}

/** Nearest-rank percentile; 0 for no values. */
function percentile(values: number[], p: number): number {
  if (!values.length) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

const percentiles = (values: number[]): Percentiles => ({ p50: percentile(values, 50), p95: percentile(values, 95) });

export function summarize(tenantId: string, turns: ReplayedTurn[]): ReplayReport {
  const byKind: Partial<Record<ChangeKind, number>> = {};
  const decisions: Record<string, number> = {};
  for (const t of turns) {
    for (const kind of t.changes) byKind[kind] = (byKind[kind] ?? 0) + 1;
    if (t.changes.includes('decision')) {
      const key = `${t.before.decision}→${t.after.decision}`;
      decisions[key] = (decisions[key] ?? 0) + 1;
    }
  }
  const calls = turns.flatMap((t) => t.calls);
  const replayedTurns = turns.filter((t) => t.status === 'replayed');
  return {
    tenantId,
    turns,
    summary: {
      replayed: turns.length,
      changed: turns.filter((t) => t.changes.length).length,
      byKind,
      decisions,
      needsModel: turns.length - replayedTurns.length,
      answeredFromRecording: calls.filter((c) => c.source === 'recorded').length,
      answeredByModel: calls.filter((c) => c.source === 'model').length,
      toolListChanged: turns.filter((t) => t.toolList.changed).length,
      modelCalls: {
        recorded: turns.reduce((n, t) => n + t.before.modelCalls, 0),
        replayed: replayedTurns.reduce((n, t) => n + t.after.modelCalls, 0),
      },
      latency: {
        recorded: percentiles(turns.map((t) => t.latency.recordedMs)),
        replayed: percentiles(replayedTurns.map((t) => t.latency.replayedMs)),
      },
    },
  };
}
