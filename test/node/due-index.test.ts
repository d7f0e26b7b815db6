import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OutboxEntry } from '../../core/outbox-entry.js';
import { OUTBOX_SWEEP_AFTER_MS } from '../../core/storage/due-index.js';
import { DUE_INDEX_KEY, DUE_INDEX_SEEDED_KEY, TENANT_INDEX_KEY, tenantKeys } from '../../core/storage/keys.js';
import { commitNoticeEntry } from '../../outbox/commit-notice.js';
import { claimWith } from '../../core/storage/claims.js';
import { decidePinned } from '../../src/approvals/pinned-store.js';
import type { PinnedTerms } from '../../core/pinned-terms.js';
import { startCronHarness, type CronHarness } from '../../evals/cron-harness.js';
import { DUE_TENANTS_PER_RUN } from '../../src/scheduled.js';

/**
 * The cron reads only what the due-work index names: an idle minute costs the same whatever the
 * number of tenants, and work written through the real writers is still found when it is due.
 * A private Redis (the harness's), so Redis's own command counts are the cron's alone.
 */
let h: CronHarness;
const DIGEST = 'a'.repeat(64);
const T0 = Date.parse('2030-01-01T10:00:00.000Z');
const at = (ms: number) => new Date(T0 + ms);

function entry(tenantId: string, turnId: string, createdAt: Date): OutboxEntry {
  return {
    turnId,
    tenantId,
    channel: 'manychat',
    contactId: '4242',
    actions: [],
    state: 'pending',
    createdAt: createdAt.toISOString(),
    attempts: 0,
  };
}

async function dueScore(tenantId: string): Promise<number | null> {
  const score = await h.raw.zscore(DUE_INDEX_KEY, tenantId);
  return score === null ? null : Number(score);
}

beforeAll(async () => {
  h = await startCronHarness();
  // 300 tenants that exist and have nothing to do.
  const ids = Array.from({ length: 300 }, (_, i) => `idle${i}`);
  await h.raw.sadd(TENANT_INDEX_KEY, ...ids);
}, 30_000);

afterAll(async () => {
  await h?.close();
});

describe('the due-work index', () => {
  it('the first cron seeds it once from the queues (work written before the index existed is found)', async () => {
    // An outbox entry written without the index, as data from before it would be.
    await h.raw.sadd(TENANT_INDEX_KEY, 'legacy');
    await h.raw.zadd(tenantKeys('legacy').outboxPending, T0 - 10 * 60_000, 'turn_legacy');
    await h.commandsSince();
    await h.runCron(at(0));
    expect(await h.raw.exists(DUE_INDEX_SEEDED_KEY)).toBe(1);
    expect(h.published.map((m) => m.turnId)).toEqual(['turn_legacy']);
    // Still pending after the publish (nothing delivered it here): due again one sweep interval later.
    expect(await dueScore('legacy')).toBe(T0 + OUTBOX_SWEEP_AFTER_MS);
    expect(await dueScore('idle0')).toBeNull();
  });

  it('an idle cron minute costs at most 5 Redis commands with 300 tenants', async () => {
    await h.commandsSince();
    await h.runCron(at(60_000));
    const { total, byCommand } = await h.commandsSince();
    expect(byCommand).toEqual({ zrange: 1, exists: 1 });
    expect(total).toBeLessThanOrEqual(5);
  });

  it('an outbox entry committed through the real writer is due one sweep interval after it was written', async () => {
    h.published.length = 0;
    expect(await commitNoticeEntry(h.session, entry('busy', 'turn_busy', at(120_000)))).toBe(true);
    expect(await dueScore('busy')).toBe(T0 + 120_000 + OUTBOX_SWEEP_AFTER_MS);
    await h.runCron(at(180_000));
    expect(h.published.map((m) => m.turnId)).not.toContain('turn_busy');
    await h.runCron(at(120_000 + OUTBOX_SWEEP_AFTER_MS + 1_000));
    expect(h.published.filter((m) => m.turnId === 'turn_busy')).toHaveLength(1);
    // Delivered (the delivery takes it off the pending set): the next cron that works the tenant takes it off the index.
    await h.raw.zrem(tenantKeys('busy').outboxPending, 'turn_busy');
    await h.runCron(at(120_000 + 2 * OUTBOX_SWEEP_AFTER_MS + 2_000));
    expect(await dueScore('busy')).toBeNull();
  });

  it("an open claim is indexed by the claim's own script at its due time, and only the winner's", async () => {
    h.finishJobs.length = 0;
    const open = { job: { not: 'a valid job' } as never, dueAt: T0 + 900_000 };
    const won = await claimWith(h.session.redis, 'claims', DIGEST, '4242', 'turn_c1', open, 60);
    expect(won.claimed).toBe(true);
    expect(await dueScore('claims')).toBe(T0 + 900_000);
    const lost = await claimWith(h.session.redis, 'claims', DIGEST, '4242', 'turn_c2', { ...open, dueAt: T0 }, 60);
    expect(lost.claimed).toBe(false);
    expect(await dueScore('claims')).toBe(T0 + 900_000);
    // Due: the stranded-turn sweep looks at it (its job does not parse, so it is dropped) and the index forgets the tenant.
    await h.commandsSince();
    await h.runCron(at(901_000));
    expect(await h.raw.zcard(tenantKeys('claims').openClaims)).toBe(0);
    expect(await dueScore('claims')).toBeNull();
  });

  it('a write that lands after the cron recomputed a tenant lowers its due time again (ZADD LT): never unindexed', async () => {
    await commitNoticeEntry(h.session, entry('race', 'turn_r1', at(1_000_000)));
    await h.runCron(at(1_000_000 + OUTBOX_SWEEP_AFTER_MS));
    const afterSweep = await dueScore('race');
    expect(afterSweep).toBe(T0 + 1_000_000 + 2 * OUTBOX_SWEEP_AFTER_MS);
    // An earlier-due entry written now (an older createdAt, e.g. a dead letter re-driven) moves the score down…
    await commitNoticeEntry(h.session, entry('race', 'turn_r0', at(900_000)));
    expect(await dueScore('race')).toBe(T0 + 900_000 + OUTBOX_SWEEP_AFTER_MS);
    // …and a later one never moves it up.
    await commitNoticeEntry(h.session, entry('race', 'turn_r2', at(5_000_000)));
    expect(await dueScore('race')).toBe(T0 + 900_000 + OUTBOX_SWEEP_AFTER_MS);
  });

  it('a minute with more due tenants than one batch is drained in that run, each tenant once (none carried over to a later minute)', async () => {
    h.published.length = 0;
    const n = 2 * DUE_TENANTS_PER_RUN + 100;
    const written = at(10_000_000);
    for (let i = 0; i < n; i += 100)
      await Promise.all(
        Array.from({ length: Math.min(100, n - i) }, (_, k) =>
          commitNoticeEntry(h.session, entry(`burst${i + k}`, `turn_burst${i + k}`, written)),
        ),
      );
    // An id that is not a tenant's, due first: skipped, and it cannot make the run go round forever.
    await h.raw.zadd(DUE_INDEX_KEY, T0, 'Not a tenant!');
    await h.runCron(at(10_000_000 + OUTBOX_SWEEP_AFTER_MS + 1_000));
    const burst = h.published.map((m) => m.turnId).filter((t) => t.startsWith('turn_burst'));
    expect(burst).toHaveLength(n);
    expect(new Set(burst).size).toBe(n);
    // Re-dated by the sweep, each is due again one interval after this run, not before.
    expect(await dueScore('burst0')).toBe(T0 + 10_000_000 + 2 * OUTBOX_SWEEP_AFTER_MS + 1_000);
    await h.raw.zrem(DUE_INDEX_KEY, 'Not a tenant!');
  });

  it("a Yes or an approval that commits its entry indexes it in the decision's own script", async () => {
    const terms = {
      id: 'pin_1',
      tenantId: 'decided',
      contactId: '4242',
      kind: 'confirmation',
      expiresAt: at(4_000_000).toISOString(),
    } as unknown as PinnedTerms;
    const raw = JSON.stringify(terms);
    const keys = tenantKeys('decided');
    await h.raw.set(keys.pinnedTerms('pin_1'), raw);
    await h.raw.set(keys.pinnedStatus('pin_1'), 'pending');
    const result = await decidePinned(
      h.session,
      { terms, raw, status: 'pending' },
      'confirmed',
      entry('decided', 'turn_pin_1', at(3_000_000)),
      at(3_000_000),
    );
    expect(result).toBe('ok');
    expect(await h.raw.zscore(keys.outboxPending, 'turn_pin_1')).not.toBeNull();
    expect(await dueScore('decided')).toBe(T0 + 3_000_000 + OUTBOX_SWEEP_AFTER_MS);
  });
});
