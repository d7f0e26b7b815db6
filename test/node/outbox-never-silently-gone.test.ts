import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ManyChatSandbox } from '../../dev/manychat-sandbox.js';
import { tenantKeys } from '../../core/storage/keys.js';
import type { RedisSession } from '../../core/storage/redis-session.js';
import { listDeadLetters } from '../../outbox/dead-letters.js';
import { deliverOutboxEntry } from '../../outbox/deliver-entry.js';
import { outboxKeys } from '../../core/storage/outbox-store.js';

const ledgerKey = (tenantId: string, turnId: string) => outboxKeys(tenantId).ledger(turnId);
import {
  action,
  callsFor,
  client,
  connect,
  dropTenant,
  entryFor,
  FLOW_BROCHURE,
  newSubscriber,
  startTestSandbox,
  uniqueId,
  writeEntry,
} from './outbox-fixtures.js';

/**
 * Issue 28 item 13: every committed action ends performed, dead or unknown — listed — never
 * silently gone. Against the real wire: the Upstash bridge over Redis and the ManyChat sandbox.
 */
let sandbox: ManyChatSandbox;
let session: RedisSession;
const tenantId = uniqueId('gone');

beforeAll(async () => {
  sandbox = await startTestSandbox();
  session = connect();
});

afterAll(async () => {
  await dropTenant(session, tenantId);
  await sandbox.close();
});

const deliver = (turnId: string, now?: () => Date) =>
  deliverOutboxEntry({ session, tenantId, turnId, apis: { manychat: client(sandbox) }, ...(now ? { now } : {}) });
const lettersOf = async (turnId: string) =>
  (await listDeadLetters(session, tenantId)).filter((l) => (l.entryId ?? l.turnId) === turnId);
const isPending = async (turnId: string) =>
  (await session.one((r) => r.zscore(tenantKeys(tenantId).outboxPending, turnId))) !== null;

describe('committed work is never silently gone', () => {
  it('an entry that no longer parses leaves a dead letter, with why, for each action it held that was not performed', async () => {
    const sub = newSubscriber(sandbox);
    const turnId = uniqueId('turn_');
    // Written by an older version (an action kind since retired, no createdAt): it does not parse.
    const raw = {
      turnId,
      tenantId,
      channel: 'manychat',
      contactId: sub,
      state: 'pending',
      attempts: 1,
      retentionDays: 2,
      actions: [
        { id: `${turnId}.a1`, kind: 'add_tag', tool: 'tag_contact', summary: 'add tag "vip"', args: { tag: 'vip' } },
        { id: `${turnId}.a2`, kind: 'retired_kind', tool: 'old_tool', summary: 'an old thing', args: {} },
      ],
    };
    await session.multi((m) => {
      m.set(tenantKeys(tenantId).outbox(turnId), JSON.stringify(raw));
      m.zadd(tenantKeys(tenantId).outboxPending, { score: Date.now(), member: turnId });
      // a1 was performed before the entry went bad: it is not listed.
      m.hset(ledgerKey(tenantId, turnId), {
        [`${turnId}.a1`]: JSON.stringify({ state: 'done', at: new Date().toISOString(), attempts: 1 }),
      });
    });
    const first = await deliver(turnId);
    expect(first).toMatchObject({ outcome: 'not_found', problem: 'the stored outbox entry does not match its schema' });
    // Reported as a failure too, so the tenant's channel is alerted (failure-alerts.ts).
    expect(first.failures?.map((f) => f.actionId)).toEqual([`${turnId}.a2`]);
    expect(await isPending(turnId)).toBe(false);
    // A second delivery (QStash retries) lists nothing twice.
    expect((await deliver(turnId)).failures).toBeUndefined();
    const letters = await lettersOf(turnId);
    expect(letters).toHaveLength(1);
    expect(letters[0]).toMatchObject({
      actionId: `${turnId}.a2`,
      tool: 'old_tool',
      summary: 'an old thing',
      contactId: sub,
      state: 'dead',
      detail: expect.stringMatching(/no longer matches its schema.*not performed/),
    });
    expect(letters[0]!.kind).toBeUndefined();
    // The ledger rows written for it keep the entry's retention (2 days), not the outbox's 30.
    const ttl = Number(await session.one((r) => r.ttl(ledgerKey(tenantId, turnId))));
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(2 * 86_400);
  });

  it("an unreadable entry's nonsense retention is not applied to its ledger rows (they keep the outbox's)", async () => {
    // None, a fraction of a day, fewer than none: none is a retention.
    for (const retentionDays of [0, 1.5, -2]) {
      const turnId = uniqueId('turn_');
      const raw = { turnId, retentionDays, actions: [{ id: `${turnId}.a1`, kind: 'add_tag' }] };
      await session.multi((m) => {
        m.set(tenantKeys(tenantId).outbox(turnId), JSON.stringify(raw));
        m.zadd(tenantKeys(tenantId).outboxPending, { score: Date.now(), member: turnId });
      });
      await deliver(turnId);
      expect(await lettersOf(turnId)).toHaveLength(1);
      expect(Number(await session.one((r) => r.ttl(ledgerKey(tenantId, turnId))))).toBeGreaterThan(2 * 86_400);
    }
  });

  it('an entry that vanished while still pending is listed as lost (once), not dropped', async () => {
    const turnId = uniqueId('turn_');
    await session.one((r) => r.zadd(tenantKeys(tenantId).outboxPending, { score: Date.now(), member: turnId }));
    expect((await deliver(turnId)).outcome).toBe('not_found');
    await deliver(turnId);
    const letters = await lettersOf(turnId);
    expect(letters).toHaveLength(1);
    expect(letters[0]).toMatchObject({
      state: 'unknown',
      detail: expect.stringContaining('gone while it was still pending'),
    });
    expect(await isPending(turnId)).toBe(false);
  });

  it("an entry still retrying when the tenant's retention runs out is given up and listed, not dropped by its TTL", async () => {
    const sub = newSubscriber(sandbox);
    const turnId = uniqueId('turn_');
    const createdAt = new Date(Date.now() - (2 * 24 - 0.5) * 3600_000); // 30 min before a 2-day retention ends
    await writeEntry(session, {
      ...entryFor(
        tenantId,
        turnId,
        sub,
        [
          action(turnId, 1, { kind: 'send_flow', args: { flowNs: FLOW_BROCHURE, flowName: 'brochure' } }),
          action(turnId, 2, { kind: 'add_tag', args: { tag: 'interested' } }),
        ],
        createdAt,
      ),
      retentionDays: 2,
    });
    sandbox.injectFault({ path: '/sendFlow', count: 1, kind: '429', retryAfterSeconds: 30 });
    const result = await deliver(turnId);
    // One last attempt was made (the 429); then it is settled failed, not left to expire.
    expect(result).toMatchObject({ outcome: 'done', entryState: 'failed' });
    expect(await isPending(turnId)).toBe(false);
    expect(callsFor(sandbox, sub).filter((c) => c.status === 200)).toEqual([]);
    const letters = await lettersOf(turnId);
    expect(letters.map((l) => [l.actionId, l.state]).sort()).toEqual([
      [`${turnId}.a1`, 'dead'],
      [`${turnId}.a2`, 'dead'],
    ]);
    for (const l of letters) expect(l.detail).toContain("the tenant's retention (2 days)");
    // The last failure is named where there was one: a1 met the 429, a2 was never tried.
    const detail = (id: string) => letters.find((l) => l.actionId === id)!.detail;
    expect(detail(`${turnId}.a1`)).toMatch(/\(last: HTTP 429/);
    expect(detail(`${turnId}.a2`)).toMatch(/given up, not performed$/);
  });

  it('gives up from exactly an hour before the entry expires, not a moment earlier', async () => {
    const sub = newSubscriber(sandbox);
    const createdAt = new Date(Date.now() - 24 * 3600_000);
    const giveUpAt = createdAt.getTime() + (2 * 24 - 1) * 3600_000;
    const outcomeAt = async (at: number) => {
      const turnId = uniqueId('turn_');
      await writeEntry(session, {
        ...entryFor(tenantId, turnId, sub, [action(turnId, 1, { kind: 'add_tag', args: { tag: 'vip' } })], createdAt),
        retentionDays: 2,
      });
      sandbox.injectFault({ path: '/addTagByName', count: 1, kind: '503' });
      return (await deliver(turnId, () => new Date(at))).entryState;
    };
    expect(await outcomeAt(giveUpAt - 1)).toBe('pending');
    expect(await outcomeAt(giveUpAt)).toBe('failed');
  });

  it('a delivery for an entry that settled and has since expired (no longer pending) lists nothing', async () => {
    const turnId = uniqueId('turn_');
    const result = await deliver(turnId);
    expect(result.outcome).toBe('not_found');
    expect(result).not.toHaveProperty('failures');
    expect(await lettersOf(turnId)).toEqual([]);
  });

  it('a young entry that meets a 429 stays pending, with no dead letter', async () => {
    const sub = newSubscriber(sandbox);
    const turnId = uniqueId('turn_');
    await writeEntry(session, {
      ...entryFor(tenantId, turnId, sub, [action(turnId, 1, { kind: 'add_tag', args: { tag: 'interested' } })]),
      retentionDays: 2,
    });
    sandbox.injectFault({ path: '/addTagByName', count: 1, kind: '429', retryAfterSeconds: 30 });
    expect((await deliver(turnId)).outcome).toBe('retry');
    expect(await isPending(turnId)).toBe(true);
    expect(await lettersOf(turnId)).toEqual([]);
  });
});
