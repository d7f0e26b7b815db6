import { describe, expect, it } from 'vitest';
import { session, uniqueId } from '../../test/support/workers-env.js';
import { REPLAY_RUNS_PER_MINUTE, REPLAY_TURNS_PER_MINUTE, replayAllowed } from './replay-limit.js';

/** The replay limits against the real Redis (through the Upstash bridge), per tenant. */
describe('replayAllowed', () => {
  it('turns per minute: a run that would pass the tenant’s turn budget is refused with a wait, and gives its run token back', async () => {
    const tenantId = uniqueId('rl');
    const half = Math.floor(REPLAY_TURNS_PER_MINUTE.tokens / 2) + 1;
    expect(await replayAllowed(session(), tenantId, half)).toEqual({ ok: true });
    const refused = await replayAllowed(session(), tenantId, half);
    expect(refused).toMatchObject({
      ok: false,
      kind: 'limited',
      message: expect.stringContaining(
        `too many replayed turns: at most ${REPLAY_TURNS_PER_MINUTE.tokens} a minute per tenant (this replay has ${half})`,
      ),
    });
    expect(
      refused.ok === false &&
        refused.kind === 'limited' &&
        refused.retryAfterSeconds >= 1 &&
        refused.retryAfterSeconds <= 60,
    ).toBe(true);
    // Two runs were asked, one refused and refunded: the tenant has all but one run left.
    for (let i = 1; i < REPLAY_RUNS_PER_MINUTE.tokens; i++)
      expect(await replayAllowed(session(), tenantId, 0)).toEqual({ ok: true });
    expect(await replayAllowed(session(), tenantId, 0)).toMatchObject({
      ok: false,
      kind: 'limited',
      message: expect.stringContaining('too many replays'),
    });
    // Another tenant's budget is its own.
    expect(await replayAllowed(session(), uniqueId('rl'), half)).toEqual({ ok: true });
  });

  it('a run larger than the whole per-minute budget is refused as too large (no wait helps), taking nothing', async () => {
    const tenantId = uniqueId('rl');
    expect(await replayAllowed(session(), tenantId, REPLAY_TURNS_PER_MINUTE.tokens + 1)).toMatchObject({
      ok: false,
      kind: 'too-large',
      message: expect.stringContaining('narrow the selection'),
    });
    expect(await replayAllowed(session(), tenantId, REPLAY_TURNS_PER_MINUTE.tokens)).toEqual({ ok: true });
  });
});
