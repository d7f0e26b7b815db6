import { afterEach, describe, expect, it, vi } from 'vitest';
import { turnInput } from '../test/support/guardrail-input.js';
import { escalate, pass, veto, type Guardrail, type GuardrailResult } from './guardrail.js';
import { runGuardrails } from './pipeline.js';

const input = turnInput();
const TIMEOUT_MS = 200;

function fixed(name: string, result: GuardrailResult): Guardrail {
  return { name, check: () => result };
}

/** A guardrail whose answer is not one of the three verdicts (a bug, or a plug-in written against another version). */
function bogus(name: string, result: unknown): Guardrail {
  return { name, check: () => result as GuardrailResult };
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('runGuardrails: only a unanimous pass passes', () => {
  it('each verdict records how long its guardrail took', async () => {
    const clock = vi.spyOn(performance, 'now');
    clock.mockReturnValueOnce(1_000).mockReturnValueOnce(1_042);
    const r = await runGuardrails([fixed('a', pass())], input, TIMEOUT_MS);
    expect(r.verdicts[0]?.ms).toBe(42);
  });

  it('every pass → pass, with one verdict per guardrail in their order', async () => {
    const r = await runGuardrails([fixed('a', pass('fine')), fixed('b', pass('also fine'))], input, TIMEOUT_MS);
    expect(r.outcome).toBe('pass');
    expect(r.reason).toBe('every guardrail passed');
    expect(r.verdicts.map((v) => [v.guardrail, v.outcome, v.reason])).toEqual([
      ['a', 'pass', 'fine'],
      ['b', 'pass', 'also fine'],
    ]);
    for (const v of r.verdicts) expect(v.ms).toBeGreaterThanOrEqual(0);
  });

  it('no guardrail at all is a pass (nothing objected); the registry always configures some', async () => {
    expect((await runGuardrails([], input, TIMEOUT_MS)).outcome).toBe('pass');
  });

  it('one veto among passes vetoes, and the reason names the guardrail', async () => {
    const r = await runGuardrails(
      [fixed('a', pass()), fixed('content', veto('card number')), fixed('c', pass())],
      input,
      TIMEOUT_MS,
    );
    expect(r.outcome).toBe('veto');
    expect(r.reason).toBe('content: card number');
  });

  it('an escalate wins over an earlier veto; the first escalate is the reason', async () => {
    const r = await runGuardrails(
      [fixed('v', veto('no')), fixed('e1', escalate('first')), fixed('e2', escalate('second'))],
      input,
      TIMEOUT_MS,
    );
    expect(r.outcome).toBe('escalate');
    expect(r.reason).toBe('e1: first');
  });

  it('the first veto is the reason when several veto', async () => {
    const r = await runGuardrails([fixed('v1', veto('one')), fixed('v2', veto('two'))], input, TIMEOUT_MS);
    expect(r.reason).toBe('v1: one');
  });
});

describe('runGuardrails: a guardrail that misbehaves escalates (fail closed), never passes', () => {
  it.each([
    ['an outcome outside pass/veto/escalate', { outcome: 'allow', reason: 'looks fine' }],
    ['an outcome in another case', { outcome: 'PASS', reason: 'looks fine' }],
    ['no result at all', undefined],
    ['null', null],
    ['an object without an outcome', { reason: 'forgot the outcome' }],
  ])('%s → escalate', async (_name, result) => {
    const r = await runGuardrails([fixed('ok', pass()), bogus('broken', result)], input, TIMEOUT_MS);
    expect(r.outcome).toBe('escalate');
    expect(r.reason).toBe('broken: guardrail returned no valid verdict (fail closed)');
    expect(r.verdicts[1]).toMatchObject({ guardrail: 'broken', outcome: 'escalate' });
  });

  it('a throw → escalate with the error message', async () => {
    const throws: Guardrail = {
      name: 'thrower',
      check: () => {
        throw new Error('regex blew up');
      },
    };
    const r = await runGuardrails([throws], input, TIMEOUT_MS);
    expect(r.outcome).toBe('escalate');
    expect(r.reason).toBe('thrower: guardrail failed: regex blew up (fail closed)');
  });

  it('a rejection that is not an Error → escalate with its text', async () => {
    const rejects: Guardrail = { name: 'rejecter', check: () => Promise.reject('plain string') };
    const r = await runGuardrails([rejects], input, TIMEOUT_MS);
    expect(r.reason).toBe('rejecter: guardrail failed: plain string (fail closed)');
  });

  it('a guardrail that never answers → escalate after the timeout, and its signal is aborted', async () => {
    let signal: AbortSignal | undefined;
    const hangs: Guardrail = {
      name: 'slow',
      check: (_input, s) => {
        signal = s;
        return new Promise<GuardrailResult>(() => {});
      },
    };
    const started = performance.now();
    const r = await runGuardrails([fixed('ok', pass()), hangs], input, 50);
    expect(r.outcome).toBe('escalate');
    expect(r.reason).toBe('slow: guardrail did not finish within 50 ms (fail closed)');
    expect(signal?.aborted).toBe(true);
    // Bounded by the timeout, not by the guardrail (a generous upper bound for a loaded machine).
    expect(performance.now() - started).toBeLessThan(5_000);
  });

  it('an async guardrail that answers in time is judged on its answer, and its signal is not aborted', async () => {
    let signal: AbortSignal | undefined;
    const async: Guardrail = {
      name: 'async',
      check: async (_input, s) => {
        signal = s;
        await new Promise((resolve) => setTimeout(resolve, 5));
        return veto('late but in time');
      },
    };
    const r = await runGuardrails([async], input, 300);
    expect(r).toMatchObject({ outcome: 'veto', reason: 'async: late but in time' });
    // The timer is cleared once the guardrail answers: the signal is not aborted later either.
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(signal?.aborted).toBe(false);
  });
});
