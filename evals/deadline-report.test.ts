import { describe, expect, it } from 'vitest';
import type { TurnObservation } from './turn-observation.js';
import { renderDeadline, summarizeDeadline } from './deadline-report.js';

const BUDGET = 7750;
const turn = (o: {
  scriptKind: TurnObservation['scriptKind'];
  effective: number[];
  deferred: boolean;
  latencyMs?: number;
  servedMs?: number;
  timings?: { totalMs: number; loadMs: number; modelMs: number; guardrailsMs: number; commitMs: number };
}): TurnObservation =>
  ({
    scriptKind: o.scriptKind,
    deferred: o.deferred,
    latencyMs: o.latencyMs ?? 100,
    modelMs: o.servedMs ?? 0,
    scripted: {
      latencies: o.effective,
      effective: o.effective,
      drawn: [true],
      modelled: true,
      budgetMs: BUDGET,
      path: 'normal',
    },
    record: o.timings ? { timings: o.timings } : null,
  }) as unknown as TurnObservation;

describe('summarizeDeadline', () => {
  it('splits the deferred share by population and blames the draw only when the drawn time passed the budget', () => {
    const s = summarizeDeadline([
      turn({ scriptKind: 'no-tool', effective: [8600], deferred: true }),
      turn({ scriptKind: 'no-tool', effective: [7700], deferred: true }),
      turn({ scriptKind: null, effective: [9000], deferred: true }),
      turn({
        scriptKind: 'staging-only',
        effective: [1000],
        deferred: false,
        latencyMs: 1100,
        servedMs: 1000,
        timings: { totalMs: 1060, loadMs: 20, modelMs: 1030, guardrailsMs: 3, commitMs: 7 },
      }),
    ]);
    expect(s.succeeding).toEqual({ turns: 3, deferred: 2 });
    expect(s.failing).toEqual({ turns: 1, deferred: 1 });
    expect(s.deferredByDraw).toBe(2);
    expect(s.deferredByOverhead).toBe(1);
    expect(s.partsN).toBe(1);
    expect(s.parts['outside the turn'].p50).toBe(40);
    expect(s.parts['before the model'].p50).toBe(20);
    expect(s.parts['model calls beyond served'].p50).toBe(30);
    expect(s.parts.commit.p95).toBe(7);
    expect(renderDeadline(s).join('\n')).toContain('2 of 3 deferred');
  });
});
