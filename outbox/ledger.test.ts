import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { RedisSession } from '../core/storage/redis-session.js';
import { tenantKeys } from '../core/storage/keys.js';
import { listDeadLetters } from './dead-letters.js';
import {
  claimAction,
  DEAD_LETTER_LIMIT,
  isTerminal,
  markDead,
  markDone,
  markUnknown,
  releaseClaim,
  resetForRedrive,
  type LedgerRef,
} from './ledger.js';
import { ledgerRowsFromReply, outboxKeys, parseLedgerRow, readLedger } from '../core/storage/outbox-store.js';

const leaseKey = (tenantId: string, turnId: string) => outboxKeys(tenantId).lease(turnId);

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
  return JSON.stringify({
    tenantId,
    turnId: r.turnId,
    actionId,
    contactId: '1',
    kind: 'send_flow',
    tool: 'send_media',
    summary: 's',
    idempotent: false,
    state,
    detail,
    at: at.toISOString(),
  });
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
    expect(await claimAction(r, 'a1', at)).toEqual({
      applied: true,
      row: { state: 'claimed', at: at.toISOString(), attempts: 1 },
    });
    expect(await claimAction(r, 'a1', at)).toMatchObject({
      applied: false,
      reason: 'state',
      row: { state: 'claimed' },
    });
    expect(await claimAction(r, 'a1', at, { reclaim: true })).toMatchObject({
      applied: true,
      row: { state: 'claimed', attempts: 2 },
    });
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
    expect(await releaseClaim(r, 'a1', at, 'HTTP 429: slow down')).toMatchObject({
      applied: true,
      row: { state: 'pending', detail: 'HTTP 429: slow down', attempts: 1 },
    });
    expect(await claimAction(r, 'a1', at)).toMatchObject({
      applied: true,
      row: { state: 'claimed', attempts: 2, detail: 'HTTP 429: slow down' },
    });
    expect(await markDone(r, 'a1', at)).toMatchObject({ applied: true, row: { state: 'done' } });
    expect((await readLedger(r)).get('a1')?.detail).toBeUndefined();
  });

  it('unknown and dead are listed as dead letters in the same step; a re-drive takes them off', async () => {
    const r = ref();
    await claimAction(r, 'a1', at);
    await claimAction(r, 'a2', at);
    expect(await markUnknown(r, 'a1', at, 'no answer', letter(r, 'a1', 'unknown', 'no answer'))).toMatchObject({
      applied: true,
      row: { state: 'unknown', detail: 'no answer' },
    });
    expect(await markDead(r, 'a2', at, 'HTTP 400: nope', letter(r, 'a2', 'dead', 'HTTP 400: nope'))).toMatchObject({
      applied: true,
      row: { state: 'dead', detail: 'HTTP 400: nope' },
    });
    // A second unknown changes nothing and lists nothing twice.
    expect(await markUnknown(r, 'a1', at, 'again', letter(r, 'a1', 'unknown', 'again'))).toMatchObject({
      applied: false,
    });
    const listed = (await listDeadLetters(session, tenantId)).filter((l) => l.turnId === r.turnId);
    expect(listed.map((l) => [l.actionId, l.state, l.currentState]).sort()).toEqual([
      ['a1', 'unknown', 'unknown'],
      ['a2', 'dead', 'dead'],
    ]);

    expect(await resetForRedrive(r, 'a1', at, ['dead'])).toMatchObject({ applied: false, row: { state: 'unknown' } });
    expect(await resetForRedrive(r, 'a1', at, ['dead', 'unknown'])).toMatchObject({
      applied: true,
      row: { state: 'pending' },
    });
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

describe('ledger transitions: every edge of the state machine', () => {
  const rawDeadLetters = () =>
    session.one((c) => c.lrange(tenantKeys(tenantId).deadLetters, 0, -1)) as Promise<unknown[]>;

  it('a reclaim also takes an absent row, and a pending one (released earlier)', async () => {
    const r = ref();
    expect(await claimAction(r, 'a1', at, { reclaim: true })).toMatchObject({
      applied: true,
      row: { state: 'claimed', attempts: 1 },
    });
    await releaseClaim(r, 'a1', at, 'HTTP 503');
    expect(await claimAction(r, 'a1', at, { reclaim: true })).toMatchObject({
      applied: true,
      row: { state: 'claimed', attempts: 2 },
    });
  });

  it('a plain claim takes a pending row (released earlier) but never a dead or unknown one', async () => {
    const r = ref();
    await claimAction(r, 'a1', at);
    await releaseClaim(r, 'a1', at, 'HTTP 429');
    expect(await claimAction(r, 'a1', at)).toMatchObject({ applied: true, row: { state: 'claimed' } });
    await markUnknown(r, 'a1', at, 'timeout', letter(r, 'a1', 'unknown', 'timeout'));
    expect(await claimAction(r, 'a1', at)).toMatchObject({
      applied: false,
      reason: 'state',
      row: { state: 'unknown' },
    });
    expect(await claimAction(r, 'a1', at, { reclaim: true })).toMatchObject({
      applied: false,
      row: { state: 'unknown' },
    });
    await claimAction(r, 'a2', at);
    await markDead(r, 'a2', at, 'HTTP 400', letter(r, 'a2', 'dead', 'HTTP 400'));
    expect(await claimAction(r, 'a2', at, { reclaim: true })).toMatchObject({ applied: false, row: { state: 'dead' } });
  });

  it('unknown → done records the truth learnt later (and clears the detail); done is not re-marked', async () => {
    const r = ref();
    await claimAction(r, 'a1', at);
    await markUnknown(r, 'a1', at, 'no answer', letter(r, 'a1', 'unknown', 'no answer'));
    const later = new Date('2026-01-01T00:05:00.000Z');
    expect(await markDone(r, 'a1', later)).toEqual({
      applied: true,
      row: { state: 'done', at: later.toISOString(), attempts: 1 },
    });
    expect(await markDone(r, 'a1', later)).toMatchObject({ applied: false, reason: 'state', row: { state: 'done' } });
  });

  it("done may carry the API's words", async () => {
    const r = ref();
    await claimAction(r, 'a1', at);
    expect(await markDone(r, 'a1', at, 'HTTP 200 (already tagged)')).toMatchObject({
      applied: true,
      row: { state: 'done', detail: 'HTTP 200 (already tagged)' },
    });
  });

  it('markDone needs a claim: an absent or pending row is never marked done', async () => {
    const r = ref();
    expect(await markDone(r, 'a1', at)).toEqual({ applied: false, row: null, reason: 'state' });
    await claimAction(r, 'a2', at);
    await releaseClaim(r, 'a2', at, 'HTTP 503');
    expect(await markDone(r, 'a2', at)).toMatchObject({ applied: false, row: { state: 'pending' } });
  });

  it('dead from a row never claimed (invalid arguments) and from a pending one, without counting an attempt', async () => {
    const r = ref();
    expect(await markDead(r, 'a1', at, 'invalid arguments', letter(r, 'a1', 'dead', 'invalid arguments'))).toEqual({
      applied: true,
      row: { state: 'dead', at: at.toISOString(), attempts: 0, detail: 'invalid arguments' },
    });
    await claimAction(r, 'a2', at);
    await releaseClaim(r, 'a2', at, 'HTTP 503');
    expect(await markDead(r, 'a2', at, 'gave up', letter(r, 'a2', 'dead', 'gave up'))).toMatchObject({
      applied: true,
      row: { state: 'dead', attempts: 1 },
    });
    // dead is terminal: a second dead changes nothing
    expect(await markDead(r, 'a2', at, 'again', letter(r, 'a2', 'dead', 'again'))).toMatchObject({
      applied: false,
      row: { state: 'dead', detail: 'gave up' },
    });
  });

  it('release and unknown need a claim', async () => {
    const r = ref();
    expect(await releaseClaim(r, 'a1', at, 'x')).toMatchObject({ applied: false, row: null });
    expect(await markUnknown(r, 'a1', at, 'x', letter(r, 'a1', 'unknown', 'x'))).toMatchObject({
      applied: false,
      row: null,
    });
  });

  it('a re-drive keeps the detail and the attempts, and only from the states it is given', async () => {
    const r = ref();
    await claimAction(r, 'a1', at);
    await markDead(r, 'a1', at, 'HTTP 400', letter(r, 'a1', 'dead', 'HTTP 400'));
    expect(await resetForRedrive(r, 'a1', at, ['unknown'])).toMatchObject({ applied: false, row: { state: 'dead' } });
    expect(await resetForRedrive(r, 'a1', at, ['dead'])).toEqual({
      applied: true,
      row: { state: 'pending', at: at.toISOString(), attempts: 1, detail: 'HTTP 400' },
    });
  });

  it('only dead and unknown push a dead letter: claim, release and done list nothing', async () => {
    const r = ref();
    const before = await rawDeadLetters();
    await claimAction(r, 'a1', at);
    await releaseClaim(r, 'a1', at, 'HTTP 429');
    await claimAction(r, 'a1', at, { reclaim: true });
    await markDone(r, 'a1', at);
    await resetForRedrive(r, 'a1', at, ['dead']);
    expect(await rawDeadLetters()).toEqual(before);
  });

  it('a refused transition pushes no dead letter', async () => {
    const r = ref();
    const before = await rawDeadLetters();
    expect(await markUnknown(r, 'a1', at, 'x', letter(r, 'a1', 'unknown', 'x'))).toMatchObject({ applied: false });
    expect(await rawDeadLetters()).toEqual(before);
  });

  it('the dead-letter list expires and keeps the newest DEAD_LETTER_LIMIT items', async () => {
    const r = ref();
    await markDead(r, 'a1', at, 'x', letter(r, 'a1', 'dead', 'x'));
    const ttl = await session.one((c) => c.ttl(tenantKeys(tenantId).deadLetters));
    expect(ttl).toBeGreaterThan(0);
    expect(DEAD_LETTER_LIMIT).toBe(1000);
  });

  it("a new dead letter drops the letters past the retention (the list's TTL restarts with each one)", async () => {
    const own = `${tenantId}-ret`;
    const r = { session, tenantId: own, turnId: 'turn_ret', retentionDays: 30 };
    const letterAt = (actionId: string, when: Date) =>
      JSON.stringify({
        tenantId: own,
        turnId: r.turnId,
        actionId,
        contactId: '1',
        kind: 'send_flow',
        tool: 'send_media',
        summary: 's',
        idempotent: false,
        state: 'dead',
        detail: 'x',
        at: when.toISOString(),
      });
    const day = 24 * 3600 * 1000;
    const list = async () =>
      ((await session.one((c) => c.lrange(tenantKeys(own).deadLetters, 0, -1))) as unknown[]).map(
        (l) => (JSON.parse(typeof l === 'string' ? l : JSON.stringify(l)) as { actionId: string }).actionId,
      );
    try {
      await claimAction(r, 'old', at);
      await markDead(r, 'old', at, 'x', letterAt('old', at));
      await claimAction(r, 'edge', at);
      await markDead(
        r,
        'edge',
        new Date(at.getTime() + 10 * day),
        'x',
        letterAt('edge', new Date(at.getTime() + 10 * day)),
      );
      expect(await list()).toEqual(['edge', 'old']);
      // 35 days after the first: it is past 30 days and goes; the one 25 days old stays.
      const later = new Date(at.getTime() + 35 * day);
      await claimAction(r, 'new', later);
      await markDead(r, 'new', later, 'x', letterAt('new', later));
      expect(await list()).toEqual(['new', 'edge']);
    } finally {
      const keys = await session.one((c) => c.keys(`t:${own}:*`));
      if (keys.length) await session.one((c) => c.del(...keys));
    }
  });

  it("a retention shorter than the outbox TTL bounds the ledger row's life", async () => {
    const r = { ...ref(), retentionDays: 1 };
    await claimAction(r, 'a1', at);
    const ttl = await session.one((c) => c.ttl(tenantKeys(tenantId).ledger(r.turnId)));
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(24 * 3600);
  });

  it('readLedger returns every row of the entry, and nothing for an entry never delivered', async () => {
    const r = ref();
    await claimAction(r, 'a1', at);
    await markDead(r, 'a2', at, 'bad', letter(r, 'a2', 'dead', 'bad'));
    const rows = await readLedger(r);
    expect([...rows.entries()].sort()).toEqual([
      ['a1', { state: 'claimed', at: at.toISOString(), attempts: 1 }],
      ['a2', { state: 'dead', at: at.toISOString(), attempts: 0, detail: 'bad' }],
    ]);
    expect((await readLedger(ref())).size).toBe(0);
  });
});

describe("the lease key (the outbox store's)", () => {
  it("is the outbox entry's key with :lease, under the tenant prefix (the fence's default)", () => {
    expect(leaseKey('tl1', 'turn_x')).toBe(`${tenantKeys('tl1').outbox('turn_x')}:lease`);
    expect(leaseKey('tl1', 'turn_x')).toMatch(/^t:tl1:.*turn_x:lease$/);
  });
});

describe('isTerminal: done, dead and unknown are never delivered again', () => {
  it.each([
    ['done', true],
    ['dead', true],
    ['unknown', true],
    ['pending', false],
    ['claimed', false],
    // No row yet: still to be performed.
    [undefined, false],
  ] as const)('%s → %s', (state, terminal) => {
    expect(isTerminal(state)).toBe(terminal);
  });
});

describe('parseLedgerRow', () => {
  it('reads a row, and nothing from empty, missing or malformed input', () => {
    expect(parseLedgerRow('{"state":"done","at":"x","attempts":1}')).toEqual({ state: 'done', at: 'x', attempts: 1 });
    expect(parseLedgerRow('')).toBeNull();
    expect(parseLedgerRow(null)).toBeNull();
    expect(parseLedgerRow(undefined)).toBeNull();
    expect(parseLedgerRow('{"state":"done"}')).toBeNull();
  });
});

describe('ledgerRowsFromReply', () => {
  it('reads the flat HGETALL array and the object form, skipping rows that are not ledger rows', () => {
    const row = JSON.stringify({ state: 'done', at: 'x', attempts: 1 });
    expect([...ledgerRowsFromReply(['a1', row, 'a2', '{"state":"bogus"}']).keys()]).toEqual(['a1']);
    expect(ledgerRowsFromReply({ a1: { state: 'dead', at: 'x', attempts: 2, detail: 'd' } }).get('a1')).toEqual({
      state: 'dead',
      at: 'x',
      attempts: 2,
      detail: 'd',
    });
    expect(ledgerRowsFromReply(null).size).toBe(0);
    expect(ledgerRowsFromReply('a1').size).toBe(0);
    // An odd-length array: the last field has no value and is skipped.
    expect([...ledgerRowsFromReply(['a1', row, 'a2']).keys()]).toEqual(['a1']);
    // A field that is not a string is skipped.
    expect(ledgerRowsFromReply([1, row]).size).toBe(0);
    expect(ledgerRowsFromReply({ a1: row }).get('a1')).toEqual({ state: 'done', at: 'x', attempts: 1 });
  });
});
