import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tenantKeys } from '../../core/storage/keys.js';
import type { RedisSession } from '../../core/storage/redis-session.js';
import type { DeliveryMessage } from '../../core/outbox-entry.js';
import type { OutboxPublisher } from '../../outbox/publisher.js';
import { sweepOutbox } from '../../outbox/sweeper.js';
import { action, connect, dropTenant, entryFor, seedTenant, uniqueId, writeEntry } from './outbox-fixtures.js';

/** The sweeper against Redis with a recording publisher; the e2e test sweeps through the real broker. */
let session: RedisSession;
const tenantA = uniqueId('swa');
const tenantB = uniqueId('swb');

beforeAll(async () => {
  session = connect();
  await seedTenant(session, tenantA);
  await seedTenant(session, tenantB);
});

afterAll(async () => {
  await dropTenant(session, tenantA);
  await dropTenant(session, tenantB);
});

function recorder(failFor: Set<string> = new Set()) {
  const published: DeliveryMessage[] = [];
  const publisher: OutboxPublisher = {
    publish: async (message) => {
      if (failFor.has(message.turnId)) throw new Error('QStash answered 500');
      published.push(message);
    },
  };
  return { published, publisher };
}

async function entry(tenantId: string, ageMs: number): Promise<string> {
  const turnId = uniqueId('turn_');
  await writeEntry(
    session,
    entryFor(
      tenantId,
      turnId,
      '4242',
      [action(turnId, 1, { kind: 'add_tag', args: { tag: 'interested' } })],
      new Date(Date.now() - ageMs),
    ),
  );
  return turnId;
}

describe('sweepOutbox', () => {
  it('publishes again only the entries older than the cut-off, for every tenant asked', async () => {
    const oldA = await entry(tenantA, 10 * 60_000);
    const freshA = await entry(tenantA, 1_000);
    const oldB = await entry(tenantB, 6 * 60_000);
    const { published, publisher } = recorder();
    const result = await sweepOutbox({ session, publisher, olderThanMs: 5 * 60_000, tenantIds: [tenantA, tenantB] });
    expect(result).toMatchObject({ tenants: 2, stale: 2, published: 2, failed: 0 });
    expect(published).toEqual(
      expect.arrayContaining([
        { tenantId: tenantA, turnId: oldA },
        { tenantId: tenantB, turnId: oldB },
      ]),
    );
    expect(published).not.toContainEqual({ tenantId: tenantA, turnId: freshA });
  });

  it('a published entry is not swept again until another timeout has passed', async () => {
    const turnId = await entry(tenantA, 10 * 60_000);
    const now = new Date();
    const first = recorder();
    await sweepOutbox({ session, publisher: first.publisher, olderThanMs: 5 * 60_000, tenantIds: [tenantA], now });
    expect(first.published).toContainEqual({ tenantId: tenantA, turnId });
    expect(await session.one((r) => r.zscore(tenantKeys(tenantA).outboxPending, turnId))).toBe(String(now.getTime()));

    const soon = recorder();
    await sweepOutbox({
      session,
      publisher: soon.publisher,
      olderThanMs: 5 * 60_000,
      tenantIds: [tenantA],
      now: new Date(now.getTime() + 60_000),
    });
    expect(soon.published).not.toContainEqual({ tenantId: tenantA, turnId });
    const later = recorder();
    await sweepOutbox({
      session,
      publisher: later.publisher,
      olderThanMs: 5 * 60_000,
      tenantIds: [tenantA],
      now: new Date(now.getTime() + 6 * 60_000),
    });
    expect(later.published).toContainEqual({ tenantId: tenantA, turnId });
  });

  it('a failed publish is counted, keeps the entry pending, and the next sweep tries again', async () => {
    const turnId = await entry(tenantB, 10 * 60_000);
    const failing = recorder(new Set([turnId]));
    const result = await sweepOutbox({
      session,
      publisher: failing.publisher,
      olderThanMs: 5 * 60_000,
      tenantIds: [tenantB],
    });
    expect(result.failed).toBeGreaterThanOrEqual(1);
    expect(result.errors.join('\n')).toContain(`${tenantB}/${turnId}: QStash answered 500`);
    const next = recorder();
    await sweepOutbox({ session, publisher: next.publisher, olderThanMs: 5 * 60_000, tenantIds: [tenantB] });
    expect(next.published).toContainEqual({ tenantId: tenantB, turnId });
  });

  it('walks the tenant index when no tenants are named', async () => {
    // The Redis is shared: a clock set in 2001 makes only our entry (dated 2000) stale, so the
    // sweep touches nobody else's entries.
    const turnId = await entry(tenantA, Date.now() - Date.parse('2000-01-01T00:00:00Z'));
    const { published, publisher } = recorder();
    const result = await sweepOutbox({
      session,
      publisher,
      olderThanMs: 5 * 60_000,
      now: new Date('2001-01-01T00:00:00Z'),
    });
    expect(result.tenants).toBeGreaterThanOrEqual(2);
    expect(published).toEqual([{ tenantId: tenantA, turnId }]);
  });
});
