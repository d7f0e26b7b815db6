import { describe, expect, it } from 'vitest';
import type { TurnRecord } from '../../../core/turn-record.js';
import { healthStats, percentile, turnKindOf } from './turn-stats.js';

type R = Pick<TurnRecord, 'steps' | 'decision' | 'deferred' | 'timings' | 'verdicts'>;
const step = (calls: string[], statuses: TurnRecord['steps'][number]['toolResults'][number]['status'][]) => ({
  step: 1,
  ms: 1,
  finishReason: 'tool-calls',
  toolCalls: calls.map((toolName, i) => ({ toolCallId: `c${i}`, toolName, input: {} })),
  toolResults: statuses.map((status, i) => ({ toolCallId: `c${i}`, toolName: calls[i]!, status, output: null })),
});
const record = (over: Partial<R>): TurnRecord =>
  ({
    steps: [step(['reply'], [])],
    decision: 'pass',
    deferred: false,
    timings: { totalMs: 100, loadMs: 0, modelMs: 0, guardrailsMs: 0, commitMs: 0 },
    verdicts: [],
    ...over,
  }) as unknown as TurnRecord;

describe('turn stats', () => {
  it('classifies turns like the eval runner', () => {
    expect(turnKindOf(record({}))).toBe('no-tool');
    expect(turnKindOf(record({ steps: [step(['send_media', 'reply'], ['staged'])] }))).toBe('staging-only');
    expect(turnKindOf(record({ steps: [step(['search_faq'], ['ok']), step(['reply'], [])] }))).toBe('read-then-reply');
    expect(turnKindOf(record({ deferred: true }))).toBe('deferred');
    expect(turnKindOf(record({ decision: 'error' }))).toBe('other');
    expect(turnKindOf(record({ steps: [] }))).toBe('other');
  });

  it('nearest-rank percentiles', () => {
    const sorted = Array.from({ length: 20 }, (_, i) => i + 1);
    expect(percentile(sorted, 50)).toBe(10);
    expect(percentile(sorted, 95)).toBe(19);
    expect(percentile([], 95)).toBe(0);
  });

  it('p50/p95 per kind, the deferred share and vetoes/escalations by guardrail', () => {
    const v = (guardrail: string, outcome: 'pass' | 'veto' | 'escalate') => ({ guardrail, outcome, reason: '', ms: 0 });
    const stats = healthStats([
      record({ timings: { totalMs: 100 } as TurnRecord['timings'] }),
      record({
        timings: { totalMs: 300 } as TurnRecord['timings'],
        decision: 'veto',
        verdicts: [v('content', 'veto'), v('confidence', 'pass')],
      }),
      record({
        deferred: true,
        timings: { totalMs: 8000 } as TurnRecord['timings'],
        decision: 'escalate',
        verdicts: [v('confidence', 'escalate'), v('content', 'veto')],
      }),
      record({ timings: { totalMs: 200 } as TurnRecord['timings'] }),
    ]);
    expect(stats.byKind.find((k) => k.kind === 'no-tool')).toEqual({ kind: 'no-tool', count: 3, p50: 200, p95: 300 });
    expect(stats.deferredShare).toBe(0.25);
    expect(stats.decisions).toEqual({ pass: 2, veto: 1, escalate: 1, error: 0 });
    expect(stats.byGuardrail).toEqual([
      { guardrail: 'content', veto: 2, escalate: 0 },
      { guardrail: 'confidence', veto: 0, escalate: 1 },
    ]);
  });
});
