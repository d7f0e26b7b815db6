import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { RedisSession } from '../core/storage/redis-session.js';
import { tenantKeys } from '../core/storage/keys.js';
import { listDeadLetters } from './dead-letters.js';
import { claimAction, leaseKey, ledgerRowsFromReply, markDead, markDone, markUnknown, readLedger, releaseClaim, resetForRedrive, type LedgerRef } from './ledger.js';

/** The ledger's Lua transitions against a real Redis through the Upstash REST bridge. */
let session: RedisSession;
const tenantId = `ldg${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`;
let n = 0;
const at = new Date('2026-01-01T00:00:00.000Z');

function ref(): LedgerRef {
  n++;
  return { session, tenantId, turnId: `turn_ledger${n}` };
}

function letter(r: LedgerRef, actionId: string, state: 'dead' | 'unknown', detail: string): string {
  return JSON.stringify({ tenantId, turnId: r.turnId, actionId, contactId: '1', kind: 'send_flow', tool: 'send_media', summary: 's', idempotent: false, state, detail, at: at.toISOString() });
}

beforeAll(() => {
  session = RedisSession.connect(inject('upstashUrl'), inject('upstashToken'));
});

afterAll(async () => {
  const keys = await session.one((r) => r.keys(`t:${tenantId}:*`));
  if (keys.length) await session.one((r) => r.del(...keys));
});

describe('ledger transitions', () => {
  it('claims an absent row once; a second claim sees it claimed; an idempotent reclaim counts another attempt', async () => {
    const r = ref();
    expect(await claimAction(r, 'a1', at)).toEqual({ applied: true, row: { state: 'claimed', at: at.toISOString(), attempts: 1 } });
    expect(await claimAction(r, 'a1', at)).toMatchObject({ applied: false, reason: 'state', row: { state: 'claimed' } });
    expect(await claimAction(r, 'a1', at, { reclaim: true })).toMatchObject({ applied: true, row: { state: 'claimed', attempts: 2 } });
    const ttl = await session.one((c) => c.ttl(tenantKeys(tenantId).ledger(r.turnId)));
    expect(ttl).toBeGreaterThan(0);
  });

  it('done is terminal: neither claim nor reclaim leaves it', async () => {
    const r = ref();
    await claimAction(r, 'a1', at);
    expect(await markDone(r, 'a1', at)).toMatchObject({ applied: true, row: { state: 'done', attempts: 1 } });
    expect(await claimAction(r, 'a1', at)).toMatchObject({ applied: false, row: { state: 'done' } });
    expect(await claimAction(r, 'a1', at, { reclaim: true })).toMatchObject({ applied: false, row: { state: 'done' } });
    expect(await releaseClaim(r, 'a1', at, 'x')).toMatchObject({ applied: false });
  });

  it('release puts a claim back to pending with the last failure, and it can be claimed again', async () => {
    const r = ref();
    await claimAction(r, 'a1', at);
    expect(await releaseClaim(r, 'a1', at, 'HTTP 429: slow down')).toMatchObject({ applied: true, row: { state: 'pending', detail: 'HTTP 429: slow down', attempts: 1 } });
    expect(await claimAction(r, 'a1', at)).toMatchObject({ applied: true, row: { state: 'claimed', attempts: 2, detail: 'HTTP 429: slow down' } });
    expect(await markDone(r, 'a1', at)).toMatchObject({ applied: true, row: { state: 'done' } });
    expect((await readLedger(r)).get('a1')?.detail).toBeUndefined();
  });

  it('unknown and dead are listed as dead letters in the same step; a re-drive takes them off', async () => {
    const r = ref();
    await claimAction(r, 'a1', at);
    await claimAction(r, 'a2', at);
    expect(await markUnknown(r, 'a1', at, 'no answer', letter(r, 'a1', 'unknown', 'no answer'))).toMatchObject({ applied: true, row: { state: 'unknown' } });
    expect(await markDead(r, 'a2', at, 'HTTP 400: nope', letter(r, 'a2', 'dead', 'HTTP 400: nope'))).toMatchObject({ applied: true, row: { state: 'dead', detail: 'HTTP 400: nope' } });
    // A second unknown changes nothing and lists nothing twice.
    expect(await markUnknown(r, 'a1', at, 'again', letter(r, 'a1', 'unknown', 'again'))).toMatchObject({ applied: false });
    const listed = (await listDeadLetters(session, tenantId)).filter((l) => l.turnId === r.turnId);
    expect(listed.map((l) => [l.actionId, l.state, l.currentState]).sort()).toEqual([
      ['a1', 'unknown', 'unknown'],
      ['a2', 'dead', 'dead'],
    ]);

    expect(await resetForRedrive(r, 'a1', at, ['dead'])).toMatchObject({ applied: false, row: { state: 'unknown' } });
    expect(await resetForRedrive(r, 'a1', at, ['dead', 'unknown'])).toMatchObject({ applied: true, row: { state: 'pending' } });
    const after = (await listDeadLetters(session, tenantId)).filter((l) => l.turnId === r.turnId);
    expect(after.map((l) => l.actionId)).toEqual(['a2']);
  });

  it('a fenced claim needs the lease and renews it', async () => {
    const r = ref();
    const lease = leaseKey(tenantId, r.turnId);
    const fence = { leaseKey: lease, token: 'mine', leaseMs: 60_000 };
    expect(await claimAction(r, 'a1', at, { fence })).toMatchObject({ applied: false, reason: 'lease', row: null });
    await session.one((c) => c.set(lease, 'theirs', { px: 60_000 }));
    expect(await claimAction(r, 'a1', at, { fence })).toMatchObject({ applied: false, reason: 'lease' });
    await session.one((c) => c.set(lease, 'mine', { px: 1_000 }));
    expect(await claimAction(r, 'a1', at, { fence })).toMatchObject({ applied: true });
    expect(await session.one((c) => c.pttl(lease))).toBeGreaterThan(1_000);
  });
});

describe('ledgerRowsFromReply', () => {
  it('reads the flat HGETALL array and the object form, skipping rows that are not ledger rows', () => {
    const row = JSON.stringify({ state: 'done', at: 'x', attempts: 1 });
    expect([...ledgerRowsFromReply(['a1', row, 'a2', '{"state":"bogus"}']).keys()]).toEqual(['a1']);
    expect(ledgerRowsFromReply({ a1: { state: 'dead', at: 'x', attempts: 2, detail: 'd' } }).get('a1')).toEqual({ state: 'dead', at: 'x', attempts: 2, detail: 'd' });
    expect(ledgerRowsFromReply(null).size).toBe(0);
  });
});
