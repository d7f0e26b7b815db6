import { describe, expect, it } from 'vitest';
import {
  drawStep,
  LATENCY_PRESETS,
  mulberry32,
  normalQuantile,
  presetFor,
  responseBudgetMs,
  seedOf,
  ttftQuantile,
} from './latency-model.js';
import { percentile } from './stats.js';

describe('latency model', () => {
  it('fits the TTFT lognormal to the calibration figures (median and p95/p50)', () => {
    for (const p of Object.values(LATENCY_PRESETS)) {
      expect(ttftQuantile(p, 0.5)).toBeCloseTo(p.ttftMedianMs, 6);
      expect(ttftQuantile(p, 0.95) / ttftQuantile(p, 0.5)).toBeCloseTo(p.ttftP95OverP50, 6);
      expect(p.sources.length).toBeGreaterThan(0);
    }
    expect(normalQuantile(0.975)).toBeCloseTo(1.959964, 5);
  });

  it('draws reproduce the fit (seeded) and add output time', () => {
    const p = presetFor('gpt-4.1-mini');
    const rand = mulberry32(seedOf('test'));
    const ttft: number[] = [];
    const total: number[] = [];
    for (let i = 0; i < 40_000; i++) {
      const d = drawStep(p, rand, p.refPromptTokens, 60);
      ttft.push(d.ttftMs);
      total.push(d.totalMs);
    }
    expect(percentile(ttft, 50) / p.ttftMedianMs).toBeGreaterThan(0.96);
    expect(percentile(ttft, 50) / p.ttftMedianMs).toBeLessThan(1.04);
    expect(percentile(ttft, 95) / percentile(ttft, 50)).toBeGreaterThan(4.6);
    expect(percentile(ttft, 95) / percentile(ttft, 50)).toBeLessThan(5.4);
    // 60 tokens at ~77 tok/s ≈ 0.8 s on top of the TTFT
    expect(percentile(total, 50) - percentile(ttft, 50)).toBeGreaterThan(600);
    expect(percentile(total, 50) - percentile(ttft, 50)).toBeLessThan(1000);
    expect(Math.max(...total)).toBeLessThanOrEqual(p.maxMs);
  });

  it('is deterministic for a seed and varies with it', () => {
    const p = presetFor();
    const a = drawStep(p, mulberry32(seedOf('s', 'case', 0)), 1500, 40).totalMs;
    const b = drawStep(p, mulberry32(seedOf('s', 'case', 0)), 1500, 40).totalMs;
    const c = drawStep(p, mulberry32(seedOf('s', 'case', 1)), 1500, 40).totalMs;
    expect(a).toBe(b);
    expect(c).not.toBe(a);
  });

  it('knows when the webhook can no longer wait for the model', () => {
    expect(responseBudgetMs(8000)).toBeLessThan(8000);
    expect(responseBudgetMs(8000)).toBeGreaterThan(7000);
    expect(() => presetFor('gpt-9')).toThrow(/unknown latency preset/);
  });
});

describe('the offline estimate with hedged model calls', () => {
  it('on the same draws: hedging never lengthens a turn, cuts the share past the deadline, and counts a hedge per step slower than afterMs', async () => {
    const { estimate } = await import('./estimate.js');
    const { resolve } = await import('node:path');
    const casesDir = resolve(import.meta.dirname, 'cases');
    const e = await estimate({ casesDir, draws: 2000, hedgeAfterMs: 3500, hedgeFreshCallMs: 0 });
    expect(e.hedgedOverall).not.toBeNull();
    for (const row of e.rows.filter((r) => r.hedged)) {
      expect(row.hedged!.p99).toBeLessThanOrEqual(row.p99);
      expect(row.hedged!.pastDeadline).toBeLessThanOrEqual(row.pastDeadline);
      expect(row.hedged!.hedges).toBeGreaterThan(0);
      expect(row.hedged!.hedges).toBeLessThan(row.hedged!.steps);
    }
    expect(e.hedgedOverall!.pastDeadline).toBeLessThan(e.overall.pastDeadline);
    // A hedge later than any draw (and not brought forward near the deadline) never fires: nothing changes and no call is extra.
    const never = await estimate({ casesDir, draws: 500, hedgeAfterMs: 10_000_000, hedgeFreshCallMs: 0 });
    expect(never.hedgedOverall!.hedges).toBe(0);
    expect(never.hedgedOverall!.pastDeadline).toBe(never.overall.pastDeadline);
    expect((await estimate({ casesDir, draws: 100, hedgeAfterMs: 0 })).hedgedOverall).toBeNull();
  }, 60_000);
  it('deadline-aware hedging on the same draws: fewer turns past the deadline than the fixed delay; a one-step turn hedged exactly as by a fixed delay of budget − overhead − freshCallMs; second calls sooner', async () => {
    const { estimate } = await import('./estimate.js');
    const { resolve } = await import('node:path');
    const casesDir = resolve(import.meta.dirname, 'cases');
    const fixed = await estimate({ casesDir, draws: 800, hedgeAfterMs: 4500, hedgeFreshCallMs: 0 });
    const aware = await estimate({ casesDir, draws: 800, hedgeAfterMs: 4500, hedgeFreshCallMs: 3500 });
    expect(aware.hedgedOverall!.pastDeadline).toBeLessThan(fixed.hedgedOverall!.pastDeadline);
    // A one-step turn's only call starts with the whole budget ahead (less the overhead): hedged at
    // budget − overhead − freshCallMs (7,750 − 40 − 3,500 = 4,210 ms), exactly as a fixed delay of that.
    const at = aware.budgetMs - aware.overheadMs - 3500;
    expect(at).toBe(4210);
    const fixedAt = await estimate({ casesDir, draws: 800, hedgeAfterMs: at, hedgeFreshCallMs: 0 });
    const oneStep = (e: typeof fixed) => e.rows.find((r) => r.kind === 'no-tool')!.hedged!;
    expect(oneStep(aware)).toEqual(oneStep(fixedAt));
    // A second call starts later, so it is hedged sooner than that: more hedges on the two-step kinds.
    const twoStep = (e: typeof fixed) => e.rows.find((r) => r.kind === 'read-then-reply')!.hedged!.hedges;
    expect(twoStep(aware)).toBeGreaterThan(twoStep(fixedAt));
  }, 60_000);
});
