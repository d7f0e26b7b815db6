import { describe, expect, it, vi } from 'vitest';
import { session, uniqueId } from '../test/support/workers-env.js';
import { tenantKeys } from '../core/storage/keys.js';
import { BLOCKED_LIMIT, blockedContactCount, checkRateLimit, rememberBlocked } from './rate-limit.js';
import { RateLimitSettingsSchema, type RateLimitSettings } from '../core/tenant/guardrail-settings.js';

const limits = (over: Partial<RateLimitSettings> = {}): RateLimitSettings => RateLimitSettingsSchema.parse(over);

/** Warms Redis's script cache so a measured call is not the first EVALSHA since Redis started. */
async function warm() {
  await checkRateLimit(session(), uniqueId('tw'), '1', limits());
}

describe('checkRateLimit (against the real Redis, through the Upstash REST bridge)', () => {
  it('allows within the limits and counts exactly one round trip for all three windows', async () => {
    await warm();
    const tenantId = uniqueId('trl');
    const s = session();
    const result = await checkRateLimit(s, tenantId, '42', limits());
    expect(result).toEqual({ ok: true, alongside: [] });
    expect(s.roundTrips).toBe(1);
    // Its keys live under the tenant's prefix and expire.
    const keys = await session().one((r) => r.keys(`${tenantKeys(tenantId).rateLimitPrefix}:*`));
    expect(keys.length).toBe(3);
    for (const key of keys) expect(await session().one((r) => r.pttl(key))).toBeGreaterThan(0);
  });

  it('refuses the contact over its per-minute limit with the polite reply, then without a round trip', async () => {
    await warm();
    const tenantId = uniqueId('trl');
    const settings = limits({ contactPerMinute: 2, reply: 'Slow down a little, please.' });
    expect((await checkRateLimit(session(), tenantId, '7', settings)).ok).toBe(true);
    expect((await checkRateLimit(session(), tenantId, '7', settings)).ok).toBe(true);
    const s = session();
    const third = await checkRateLimit(s, tenantId, '7', settings);
    expect(third).toMatchObject({ ok: false, scope: 'contact', reply: 'Slow down a little, please.' });
    if (!third.ok) expect(third.reason).toContain('2 a minute per contact');
    // Refunding the windows the refused message was within costs one more round trip.
    expect(s.roundTrips).toBe(2);
    const fourth = session();
    expect((await checkRateLimit(fourth, tenantId, '7', settings)).ok).toBe(false);
    expect(fourth.roundTrips).toBe(0);
    // Another contact of the same tenant is unaffected.
    expect((await checkRateLimit(session(), tenantId, '8', settings)).ok).toBe(true);
  });

  it('refuses every contact once the tenant is over its per-minute limit', async () => {
    const tenantId = uniqueId('trl');
    const settings = limits({ tenantPerMinute: 3 });
    for (const contact of ['1', '2', '3'])
      expect((await checkRateLimit(session(), tenantId, contact, settings)).ok).toBe(true);
    const refused = await checkRateLimit(session(), tenantId, '4', settings);
    expect(refused).toMatchObject({ ok: false, scope: 'tenant' });
  });

  it("a refused contact does not spend the tenant's budget (its token is refunded)", async () => {
    const tenantId = uniqueId('trl');
    const settings = limits({ tenantPerMinute: 3, contactPerMinute: 1 });
    expect((await checkRateLimit(session(), tenantId, 'noisy', settings)).ok).toBe(true);
    for (let i = 0; i < 5; i++) expect((await checkRateLimit(session(), tenantId, 'noisy', settings)).ok).toBe(false);
    // The tenant has spent 1 of 3: two other contacts still get through.
    expect((await checkRateLimit(session(), tenantId, 'a', settings)).ok).toBe(true);
    expect((await checkRateLimit(session(), tenantId, 'b', settings)).ok).toBe(true);
    expect(await checkRateLimit(session(), tenantId, 'c', settings)).toMatchObject({ ok: false, scope: 'tenant' });
  });

  it('the hourly contact window applies too', async () => {
    const tenantId = uniqueId('trl');
    const settings = limits({ contactPerMinute: 100, contactPerHour: 2 });
    await checkRateLimit(session(), tenantId, '9', settings);
    await checkRateLimit(session(), tenantId, '9', settings);
    const third = await checkRateLimit(session(), tenantId, '9', settings);
    expect(third.ok).toBe(false);
    if (!third.ok) expect(third.reason).toContain('2 an hour per contact');
  });

  it('tenants are isolated', async () => {
    const a = uniqueId('trl');
    const b = uniqueId('trl');
    const settings = limits({ tenantPerMinute: 1 });
    expect((await checkRateLimit(session(), a, '1', settings)).ok).toBe(true);
    expect((await checkRateLimit(session(), a, '2', settings)).ok).toBe(false);
    expect((await checkRateLimit(session(), b, '1', settings)).ok).toBe(true);
  });
});

describe('checkRateLimit: duplicates of a delivery', () => {
  it('a duplicate of a delivery already let through is not counted, and costs no extra round trip when within limits', async () => {
    await warm();
    const tenantId = uniqueId('trl');
    const settings = limits({ contactPerMinute: 2 });
    const s = session();
    expect(await checkRateLimit(s, tenantId, '5', settings, { deliveryKey: 'k:m1' })).toEqual({
      ok: true,
      alongside: [],
    });
    expect(s.roundTrips).toBe(1);
    for (let i = 0; i < 5; i++)
      expect((await checkRateLimit(session(), tenantId, '5', settings, { deliveryKey: 'k:m1' })).ok).toBe(true);
    // The duplicates gave their tokens back: one more new message fits, the next does not.
    expect((await checkRateLimit(session(), tenantId, '5', settings, { deliveryKey: 'k:m2' })).ok).toBe(true);
    expect((await checkRateLimit(session(), tenantId, '5', settings, { deliveryKey: 'k:m3' })).ok).toBe(false);
  });

  it('a refused delivery is forgotten, so its retry is judged again rather than waved through', async () => {
    const tenantId = uniqueId('trl');
    const settings = limits({ tenantPerMinute: 1 });
    expect((await checkRateLimit(session(), tenantId, 'a', settings, { deliveryKey: 'k:a1' })).ok).toBe(true);
    expect((await checkRateLimit(session(), tenantId, 'b', settings, { deliveryKey: 'k:b1' })).ok).toBe(false);
    expect((await checkRateLimit(session(), tenantId, 'b', settings, { deliveryKey: 'k:b1' })).ok).toBe(false);
  });
});

describe("checkRateLimit: the windows' scopes and the isolate's memory (issue 22)", () => {
  it("the hourly window is each contact's own and refuses as the contact; the isolate then refuses it as the contact too", async () => {
    const tenantId = uniqueId('trl');
    const settings = limits({ contactPerMinute: 100, contactPerHour: 1, tenantPerMinute: 100 });
    expect((await checkRateLimit(session(), tenantId, 'h1', settings)).ok).toBe(true);
    expect(await checkRateLimit(session(), tenantId, 'h1', settings)).toMatchObject({ ok: false, scope: 'contact' });
    expect(await checkRateLimit(session(), tenantId, 'h1', settings)).toMatchObject({ ok: false, scope: 'contact' });
    expect((await checkRateLimit(session(), tenantId, 'h2', settings)).ok).toBe(true);
  });

  it("a contact refused by the tenant's window is not remembered as over its own limit", async () => {
    const tenantId = uniqueId('trl');
    const settings = limits({ tenantPerMinute: 1 });
    expect((await checkRateLimit(session(), tenantId, 'a', settings)).ok).toBe(true);
    expect(await checkRateLimit(session(), tenantId, 'b', settings)).toMatchObject({ ok: false, scope: 'tenant' });
    const again = session();
    expect(await checkRateLimit(again, tenantId, 'b', settings)).toMatchObject({ ok: false, scope: 'tenant' });
    expect(again.roundTrips).toBeGreaterThan(0);
  });

  it('the isolate forgets a blocked contact once its window has passed', async () => {
    const tenantId = uniqueId('trl');
    const settings = limits({ contactPerMinute: 1 });
    expect((await checkRateLimit(session(), tenantId, 'z', settings)).ok).toBe(true);
    expect((await checkRateLimit(session(), tenantId, 'z', settings)).ok).toBe(false);
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      vi.setSystemTime(Date.now() + 2 * 3_600_000);
      expect((await checkRateLimit(session(), tenantId, 'z', settings)).ok).toBe(true);
    } finally {
      vi.useRealTimers();
    }
  });

  it('round trips are added to what the session had already counted', async () => {
    await warm();
    const s = session();
    await checkRateLimit(s, uniqueId('trl'), '1', limits());
    await checkRateLimit(s, uniqueId('trl'), '1', limits());
    expect(s.roundTrips).toBe(2);
  });
});

describe("checkRateLimit: the isolate's memory, exactly (issue 22)", () => {
  const untilOf = (reason: string) => Date.parse(/until (\S+Z)/.exec(reason)?.[1] ?? '');

  it("a contact known over its limit is refused until the window's reset, saying so; from that instant Redis judges again", async () => {
    const tenantId = uniqueId('trl');
    const settings = limits({ contactPerMinute: 1 });
    expect((await checkRateLimit(session(), tenantId, 'r', settings)).ok).toBe(true);
    const refused = await checkRateLimit(session(), tenantId, 'r', settings);
    if (refused.ok) throw new Error('expected a refusal');
    expect(refused.reason).toMatch(/^over the limit of 1 a minute per contact until \S+Z$/);
    const reset = untilOf(refused.reason);
    expect(reset).toBeGreaterThan(Date.now());
    const known = session();
    const again = await checkRateLimit(known, tenantId, 'r', settings);
    expect(again).toMatchObject({
      ok: false,
      scope: 'contact',
      reason: `contact is over a rate limit until ${new Date(reset).toISOString()} (known to this isolate)`,
    });
    expect(known.roundTrips).toBe(0);
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      vi.setSystemTime(reset);
      const atReset = session();
      await checkRateLimit(atReset, tenantId, 'r', settings);
      expect(atReset.roundTrips).toBeGreaterThan(0);
    } finally {
      vi.useRealTimers();
    }
  });

  it("a refusal by the tenant's window names that window", async () => {
    const tenantId = uniqueId('trl');
    const settings = limits({ tenantPerMinute: 1 });
    expect((await checkRateLimit(session(), tenantId, 'a', settings)).ok).toBe(true);
    const refused = await checkRateLimit(session(), tenantId, 'b', settings);
    expect(refused).toMatchObject({ ok: false, scope: 'tenant' });
    if (!refused.ok) expect(refused.reason).toMatch(/^over the limit of 1 a minute for the tenant until \S+Z$/);
  });

  it(`the memory holds at most ${BLOCKED_LIMIT} contacts: at the limit it is cleared before the next is remembered`, () => {
    const far = Date.now() + 3_600_000;
    // Fill until the memory holds exactly the contact just remembered (it was empty, or was just cleared).
    let cleared = false;
    for (let i = 0; i <= BLOCKED_LIMIT && !cleared; i++) {
      rememberBlocked(`bound-probe:fill:${i}`, far);
      cleared = blockedContactCount() === 1;
    }
    expect(cleared).toBe(true);
    for (let i = 1; i < BLOCKED_LIMIT; i++) rememberBlocked(`bound-probe:${i}`, far);
    expect(blockedContactCount()).toBe(BLOCKED_LIMIT);
    rememberBlocked('bound-probe:one-more', far);
    expect(blockedContactCount()).toBe(1);
  });
});
