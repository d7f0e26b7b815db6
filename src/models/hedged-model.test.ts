import type { LanguageModelV4CallOptions, LanguageModelV4GenerateResult } from '@ai-sdk/provider';
import { MockLanguageModelV4 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import type { HedgeRecord } from '../../core/turn-record.js';
import { forgetHedges, takeHedge } from './hedge-budget.js';
import { HEDGE_HEADER, hedgedModel } from './hedged-model.js';

const usage = (output: number) => ({
  inputTokens: { total: 100, noCache: 100, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: output, text: output, reasoning: 0 },
});
const answer = (text: string, output = 10): LanguageModelV4GenerateResult => ({
  content: [{ type: 'text', text }],
  finishReason: { unified: 'stop', raw: 'stop' },
  usage: usage(output),
  warnings: [],
});

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new Error('aborted'));
    const t = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => (clearTimeout(t), reject(new Error('aborted'))), { once: true });
  });
}

/** The primary call and the hedge behave as scripted; every call's signal is kept to see who was aborted. */
function pair(
  primary: { ms: number; fail?: string; text?: string },
  hedge: { ms: number; fail?: string; text?: string },
) {
  const signals: { hedge: boolean; signal: AbortSignal }[] = [];
  const model = new MockLanguageModelV4({
    doGenerate: async (options: LanguageModelV4CallOptions) => {
      const isHedge = options.headers?.[HEDGE_HEADER] === '1';
      signals.push({ hedge: isHedge, signal: options.abortSignal! });
      const plan = isHedge ? hedge : primary;
      await sleep(plan.ms, options.abortSignal);
      if (plan.fail) throw new Error(plan.fail);
      return answer(plan.text ?? (isHedge ? 'from the hedge' : 'from the primary'), isHedge ? 7 : 11);
    },
  });
  return { model, signals };
}

async function call(model: MockLanguageModelV4, options: { afterMs: number; allow?: boolean; signal?: AbortSignal }) {
  const hedges: HedgeRecord[] = [];
  const hedged = hedgedModel(model, {
    afterMs: () => options.afterMs,
    mayHedge: () => options.allow ?? true,
    onHedge: (h) => hedges.push(h),
  });
  const run = hedged.doGenerate({
    prompt: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
    ...(options.signal ? { abortSignal: options.signal } : {}),
  });
  return { run: Promise.resolve(run), hedges };
}

const textOf = (r: LanguageModelV4GenerateResult) => (r.content[0] as { text: string }).text;

describe('hedgedModel: a slow model call is raced by the same request, the first answer wins', () => {
  it('a call that answers before afterMs is never hedged', async () => {
    const { model } = pair({ ms: 5 }, { ms: 5 });
    const { run, hedges } = await call(model, { afterMs: 200 });
    expect(textOf(await run)).toBe('from the primary');
    expect(model.doGenerateCalls).toHaveLength(1);
    expect(hedges).toEqual([]);
  });

  it('a slow call is hedged after afterMs with the same request (marked by a header); the faster hedge wins and the primary is aborted', async () => {
    const { model, signals } = pair({ ms: 2000 }, { ms: 10 });
    const { run, hedges } = await call(model, { afterMs: 30 });
    expect(textOf(await run)).toBe('from the hedge');
    expect(model.doGenerateCalls).toHaveLength(2);
    const [first, second] = model.doGenerateCalls;
    expect(second!.prompt).toEqual(first!.prompt);
    expect(first!.headers?.[HEDGE_HEADER]).toBeUndefined();
    expect(second!.headers?.[HEDGE_HEADER]).toBe('1');
    expect(signals.find((s) => !s.hedge)!.signal.aborted).toBe(true);
    expect(signals.find((s) => s.hedge)!.signal.aborted).toBe(false);
    expect(hedges).toHaveLength(1);
    expect(hedges[0]).toMatchObject({
      afterMs: 30,
      winner: 'hedge',
      primaryAborted: true,
      hedgeAborted: false,
      outputTokens: 7,
    });
    expect(hedges[0]!.primaryMs).toBeGreaterThanOrEqual(hedges[0]!.hedgeMs);
  });

  it('when the primary answers first after all, the hedge is aborted and the primary recorded as the winner', async () => {
    const { model, signals } = pair({ ms: 80 }, { ms: 2000 });
    const { run, hedges } = await call(model, { afterMs: 20 });
    expect(textOf(await run)).toBe('from the primary');
    expect(signals.find((s) => s.hedge)!.signal.aborted).toBe(true);
    expect(hedges[0]).toMatchObject({ winner: 'primary', primaryAborted: false, hedgeAborted: true, outputTokens: 11 });
  });

  it('an error before afterMs fails at once, without a hedge (an error is not slowness)', async () => {
    const { model } = pair({ ms: 5, fail: 'HTTP 500' }, { ms: 5 });
    const { run, hedges } = await call(model, { afterMs: 200 });
    await expect(run).rejects.toThrow('HTTP 500');
    expect(model.doGenerateCalls).toHaveLength(1);
    expect(hedges).toEqual([]);
  });

  it('once the hedge runs, a failure of either waits for the other', async () => {
    const primaryFails = pair({ ms: 60, fail: 'primary broke' }, { ms: 120 });
    const a = await call(primaryFails.model, { afterMs: 20 });
    expect(textOf(await a.run)).toBe('from the hedge');
    expect(a.hedges[0]).toMatchObject({ winner: 'hedge' });

    const hedgeFails = pair({ ms: 120 }, { ms: 10, fail: 'hedge broke' });
    const b = await call(hedgeFails.model, { afterMs: 20 });
    expect(textOf(await b.run)).toBe('from the primary');
    expect(b.hedges[0]).toMatchObject({ winner: 'primary' });
  });

  it("both failing: the primary's error, recorded as won by neither", async () => {
    const { model } = pair({ ms: 60, fail: 'primary broke' }, { ms: 10, fail: 'hedge broke' });
    const { run, hedges } = await call(model, { afterMs: 20 });
    await expect(run).rejects.toThrow('primary broke');
    expect(hedges[0]).toMatchObject({ winner: 'neither' });
  });

  it('no hedge when the budget refuses one: the primary is awaited alone', async () => {
    const { model } = pair({ ms: 80 }, { ms: 5 });
    const { run, hedges } = await call(model, { afterMs: 10, allow: false });
    expect(textOf(await run)).toBe('from the primary');
    expect(model.doGenerateCalls).toHaveLength(1);
    expect(hedges).toEqual([]);
  });

  it("the caller's abort (the turn's deadline) aborts both calls", async () => {
    const { model, signals } = pair({ ms: 5000 }, { ms: 5000 });
    const deadline = new AbortController();
    const { run } = await call(model, { afterMs: 10, signal: deadline.signal });
    await sleep(40);
    deadline.abort(new Error('turn deadline'));
    await expect(run).rejects.toThrow();
    expect(signals).toHaveLength(2);
    expect(signals.every((s) => s.signal.aborted)).toBe(true);
  });
});

describe('takeHedge: at most maxPerMinute hedges per tenant in any minute', () => {
  it('counts per tenant and frees a slot a minute later', () => {
    forgetHedges();
    const t0 = 1_000_000;
    expect([takeHedge('a', 2, t0), takeHedge('a', 2, t0 + 1), takeHedge('a', 2, t0 + 2)]).toEqual([true, true, false]);
    expect(takeHedge('b', 2, t0 + 3)).toBe(true);
    expect(takeHedge('a', 2, t0 + 60_001)).toBe(true);
    expect(takeHedge('a', 0, t0)).toBe(false);
  });
});
