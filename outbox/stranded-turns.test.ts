import { beforeAll, describe, expect, inject, it } from 'vitest';
import type { FinishTurnJob } from '../core/finish-turn-job.js';
import { deliveryKeyDigest, tenantKeys } from '../core/storage/keys.js';
import { RedisSession } from '../core/storage/redis-session.js';
import { claimDelivery } from '../src/turn/claim-delivery.js';
import type { TurnJobPublisher } from './finish-turn-publisher.js';
import { finishStrandedTurns } from './stranded-turns.js';

let session: RedisSession;
beforeAll(() => {
  session = RedisSession.connect(inject('upstashUrl'), inject('upstashToken'));
});
let n = 0;
const tenant = () => `strand${Date.now().toString(36)}${++n}`;

function recordingJobs(failing = false): TurnJobPublisher & { published: { job: FinishTurnJob; attempt?: string }[] } {
  const published: { job: FinishTurnJob; attempt?: string }[] = [];
  return {
    published,
    async publishFinishTurn(job, _delay, opts) {
      if (failing) throw new Error('broker down');
      published.push({ job, ...(opts?.attempt ? { attempt: opts.attempt } : {}) });
    },
  };
}

function job(tenantId: string, turnId: string, messageKey: string, contactId = '42'): FinishTurnJob {
  return {
    turnId,
    inbound: {
      tenantId,
      channel: 'manychat',
      contactId,
      messageKey,
      text: 'hi',
      contact: { fields: {} },
      receivedAt: new Date().toISOString(),
    },
  };
}

describe('stranded turns: a claim whose turn never committed is finished by the cron', () => {
  it('publishes the finish-turn job of a claim past its due time, once per retry interval, with a sweep label', async () => {
    const tenantId = tenant();
    const now = Date.now();
    await claimDelivery(session, tenantId, 'k1', '42', 'turn_s1', {
      job: job(tenantId, 'turn_s1', 'k1'),
      dueAt: now - 1,
    });
    await claimDelivery(session, tenantId, 'k2', '42', 'turn_s2', {
      job: job(tenantId, 'turn_s2', 'k2'),
      dueAt: now + 60_000,
    });
    const jobs = recordingJobs();
    const first = await finishStrandedTurns({ session, turnJobs: jobs, tenantIds: [tenantId], now: new Date(now) });
    expect(first).toMatchObject({ found: 1, published: 1, dropped: 0, failed: 0 });
    expect(jobs.published.map((p) => [p.job.turnId, p.job.inbound.messageKey])).toEqual([['turn_s1', 'k1']]);
    expect(jobs.published[0]?.attempt).toMatch(/^sweep\d+$/);
    // Looked at again only after the retry interval; the other claim only when it is due.
    expect(
      (await finishStrandedTurns({ session, turnJobs: jobs, tenantIds: [tenantId], now: new Date(now + 1000) })).found,
    ).toBe(0);
    const later = await finishStrandedTurns({
      session,
      turnJobs: jobs,
      tenantIds: [tenantId],
      now: new Date(now + 120_000),
    });
    expect(later.published).toBe(2);
  });

  it('drops what needs nothing: a committed turn, a duplicate that lost the claim, a claim without its job', async () => {
    const tenantId = tenant();
    const keys = tenantKeys(tenantId);
    const now = Date.now();
    await claimDelivery(session, tenantId, 'done', '42', 'turn_done', {
      job: job(tenantId, 'turn_done', 'done'),
      dueAt: now - 1,
    });
    await session.one((r) => r.set(keys.turn('turn_done'), '{}'));
    // A duplicate loses the claim: it is never listed.
    const lost = await claimDelivery(session, tenantId, 'done', '42', 'turn_dup', {
      job: job(tenantId, 'turn_dup', 'done'),
      dueAt: now - 1,
    });
    expect(lost).toEqual({ claimed: false, existingTurnId: 'turn_done' });
    expect(await session.one((r) => r.zscore(keys.openClaims, 'turn_dup'))).toBeNull();
    await claimDelivery(session, tenantId, 'nojob', '42', 'turn_nojob', {
      job: job(tenantId, 'turn_nojob', 'nojob'),
      dueAt: now - 1,
    });
    await session.one((r) => r.del(keys.claimJob('turn_nojob')));
    const jobs = recordingJobs();
    const result = await finishStrandedTurns({ session, turnJobs: jobs, tenantIds: [tenantId], now: new Date(now) });
    expect(result).toMatchObject({ found: 2, published: 0, dropped: 2 });
    expect(await session.one((r) => r.zcard(keys.openClaims))).toBe(0);
  });

  it('a short-window claim (a key only the text identifies) that lapsed while its turn was stranded is still finished; one another turn took over is not', async () => {
    const tenantId = tenant();
    const keys = tenantKeys(tenantId);
    const now = Date.now();
    const lapsed = 'h:0123456789abcdef0123456789abcdef';
    await claimDelivery(session, tenantId, lapsed, '42', 'turn_lapsed', {
      job: job(tenantId, 'turn_lapsed', lapsed),
      dueAt: now - 1,
    });
    const claimKey = keys.claim(await deliveryKeyDigest('42', lapsed));
    expect(await session.one((r) => r.ttl(claimKey))).toBeLessThanOrEqual(120);
    await session.one((r) => r.del(claimKey)); // the window passed
    const taken = 'h:fedcba9876543210fedcba9876543210';
    await claimDelivery(session, tenantId, taken, '42', 'turn_old', {
      job: job(tenantId, 'turn_old', taken),
      dueAt: now - 1,
    });
    await session.one(async (r) => r.set(keys.claim(await deliveryKeyDigest('42', taken)), 'turn_new'));
    const jobs = recordingJobs();
    const result = await finishStrandedTurns({ session, turnJobs: jobs, tenantIds: [tenantId], now: new Date(now) });
    expect(jobs.published.map((p) => p.job.turnId)).toEqual(['turn_lapsed']);
    expect(result).toMatchObject({ found: 2, published: 1, dropped: 1 });
  });

  it('a failed publish keeps the claim listed, due again after the retry interval', async () => {
    const tenantId = tenant();
    const now = Date.now();
    await claimDelivery(session, tenantId, 'k', '42', 'turn_f', { job: job(tenantId, 'turn_f', 'k'), dueAt: now - 1 });
    const failed = await finishStrandedTurns({
      session,
      turnJobs: recordingJobs(true),
      tenantIds: [tenantId],
      now: new Date(now),
    });
    expect(failed).toMatchObject({ found: 1, published: 0, failed: 1 });
    expect(failed.errors[0]).toContain('broker down');
    const retried = recordingJobs();
    expect(
      (await finishStrandedTurns({ session, turnJobs: retried, tenantIds: [tenantId], now: new Date(now + 120_000) }))
        .published,
    ).toBe(1);
  });

  it("reads every tenant's due claims in one round trip: an idle cron costs one request however many tenants there are", async () => {
    const tenants = Array.from({ length: 40 }, () => tenant());
    const now = Date.now();
    // One tenant has a stranded claim, the other 39 have nothing due.
    const busy = tenants[17]!;
    await claimDelivery(session, busy, 'k9', '42', 'turn_s9', { job: job(busy, 'turn_s9', 'k9'), dueAt: now - 1 });
    const counted = RedisSession.connect(inject('upstashUrl'), inject('upstashToken'));
    const idle = await finishStrandedTurns({
      session: counted,
      turnJobs: recordingJobs(),
      tenantIds: tenants.filter((t) => t !== busy),
      now: new Date(now),
    });
    expect(idle.found).toBe(0);
    expect(counted.roundTrips).toBe(1);
    const jobs = recordingJobs();
    const withBusy = await finishStrandedTurns({
      session: counted,
      turnJobs: jobs,
      tenantIds: tenants,
      now: new Date(now),
    });
    expect(withBusy).toMatchObject({ found: 1, published: 1 });
    expect(jobs.published.map((p) => p.job.turnId)).toEqual(['turn_s9']);
  });
});
