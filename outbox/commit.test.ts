import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { HistoryEntry } from '../core/history-entry.js';
import { buildOutboxEntry } from '../core/outbox-entry.js';
import { parseJson, RedisSession } from '../core/storage/redis-session.js';
import { TTL, tenantKeys } from '../core/storage/keys.js';
import type { TurnRecord } from '../core/turn-record.js';
import { publishCommitted, writeTurnCommit, type CommitInput } from './commit.js';

/** The turn's one atomic write, against the real Redis through the Upstash REST bridge. */
let session: RedisSession;
const tenantId = `cmt${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`;
const keys = tenantKeys(tenantId);
let n = 0;

beforeAll(() => {
  session = RedisSession.connect(inject('upstashUrl'), inject('upstashToken'));
});

afterAll(async () => {
  const all = await session.one((r) => r.keys(`t:${tenantId}:*`));
  if (all.length) await session.one((r) => r.del(...all));
});

function record(contactId = '7'): TurnRecord {
  n++;
  return {
    turnId: `turn_commit${n}`,
    tenantId,
    contactId,
    messageKey: `k:${n}`,
    inbound: {
      tenantId,
      channel: 'manychat',
      contactId,
      messageKey: `k:${n}`,
      text: 'hi',
      contact: { fields: {} },
      receivedAt: '2026-03-01T10:00:00.000Z',
    },
    modelId: 'm',
    steps: [],
    modelReply: null,
    staged: [],
    verdicts: [],
    decision: 'pass',
    decisionReason: 'ok',
    reply: { text: 'Hello', quickReplies: [] },
    committed: [],
    pendingConfirmation: null,
    approvals: [],
    deferred: false,
    timings: { totalMs: 0, loadMs: 0, modelMs: 0, guardrailsMs: 0, commitMs: 0 },
    redisRoundTrips: { beforeModel: 1, afterModel: 0 },
    startedAt: '2026-03-01T10:00:00.000Z',
    finishedAt: '2026-03-01T10:00:01.000Z',
    notes: [],
  };
}

function input(r: TurnRecord, extra: Partial<CommitInput> = {}): CommitInput {
  return { record: r, entry: null, history: [], historyLimit: 10, handoffUntil: null, pinned: [], ...extra };
}

const ttl = (key: string) => session.one((c) => c.ttl(key));
const getJson = async (key: string) => parseJson(await session.one((c) => c.get(key)));
const listJson = async (key: string) => ((await session.one((c) => c.lrange(key, 0, -1))) as unknown[]).map(parseJson);
const history = (contactId: string): HistoryEntry[] => [
  { role: 'contact', text: `hi from ${contactId}`, at: '2026-03-01T10:00:00.000Z' },
  { role: 'agent', text: 'hello', at: '2026-03-01T10:00:01.000Z' },
];

describe('writeTurnCommit: the record, entry, history and indexes in one step, once', () => {
  it('writes the record with the turn TTL and indexes the turn for the contact and the log', async () => {
    const r = record('c1');
    expect(await writeTurnCommit(session, input(r))).toBe(true);
    expect(await getJson(keys.turn(r.turnId))).toEqual(r);
    const t = await ttl(keys.turn(r.turnId));
    expect(t).toBeGreaterThan(TTL.turnSeconds - 60);
    expect(t).toBeLessThanOrEqual(TTL.turnSeconds);
    expect(await session.one((c) => c.zscore(keys.contactTurns('c1'), r.turnId)).then(Number)).toBe(
      Date.parse(r.startedAt),
    );
    expect(await ttl(keys.contactTurns('c1'))).toBeGreaterThan(TTL.turnSeconds - 60);
    expect(await session.one((c) => c.zscore(keys.turnLog, r.turnId)).then(Number)).toBe(Date.parse(r.startedAt));
  });

  it('the turn log keeps the newest 1000 turns', async () => {
    const log = tenantKeys(`${tenantId}log`).turnLog;
    const r = { ...record(), tenantId: `${tenantId}log` };
    // 1000 earlier turns, all within the retention (the last minutes before this one).
    const start = Date.parse(r.startedAt);
    const old = Array.from({ length: 1000 }, (_, i) => ({ score: start - 1_000_000 + i, member: `turn_old${i}` }));
    await session.one((c) => c.zadd(log, old[0]!, ...old.slice(1)));
    await writeTurnCommit(session, input(r));
    expect(await session.one((c) => c.zcard(log))).toBe(1000);
    expect(await session.one((c) => c.zscore(log, 'turn_old0'))).toBeNull();
    expect(await session.one((c) => c.zscore(log, r.turnId))).not.toBeNull();
    const more = await session.one((c) => c.keys(`t:${tenantId}log:*`));
    if (more.length) await session.one((c) => c.del(...more));
  });

  it('the turn log follows its records out: ids past the retention are dropped, and the log expires with its newest turn', async () => {
    const tenant = `${tenantId}ret`;
    const log = tenantKeys(tenant).turnLog;
    const r = { ...record(), tenantId: tenant };
    const start = Date.parse(r.startedAt);
    await session.one((c) =>
      c.zadd(
        log,
        { score: start - TTL.turnSeconds * 1000 - 1, member: 'turn_expired' },
        { score: start - TTL.turnSeconds * 1000 + 1000, member: 'turn_still_kept' },
      ),
    );
    await writeTurnCommit(session, input(r));
    expect(await session.one((c) => c.zscore(log, 'turn_expired'))).toBeNull();
    expect(await session.one((c) => c.zscore(log, 'turn_still_kept'))).not.toBeNull();
    expect(await session.one((c) => c.zscore(log, r.turnId))).not.toBeNull();
    const t = await ttl(log);
    expect(t).toBeGreaterThan(TTL.turnSeconds - 60);
    expect(t).toBeLessThanOrEqual(TTL.turnSeconds);
    const more = await session.one((c) => c.keys(`t:${tenant}:*`));
    if (more.length) await session.one((c) => c.del(...more));
  });

  it('a second commit of the same turn writes nothing and says so', async () => {
    const r = record();
    expect(await writeTurnCommit(session, input(r))).toBe(true);
    const changed = { ...r, decisionReason: 'second run' };
    expect(await writeTurnCommit(session, input(changed, { history: history('dup') }))).toBe(false);
    expect(await getJson(keys.turn(r.turnId))).toMatchObject({ decisionReason: 'ok' });
    expect(await session.one((c) => c.exists(keys.history('dup')))).toBe(0);
  });

  it('appends the history, keeps the newest 2 × historyLimit entries (at least 1), with the history TTL', async () => {
    const r1 = record('h1');
    await writeTurnCommit(session, input(r1, { history: history('1'), historyLimit: 1 }));
    const r2 = record('h1');
    await writeTurnCommit(session, input(r2, { history: history('2'), historyLimit: 1 }));
    expect(await listJson(keys.history('h1'))).toEqual(history('2'));
    const t = await ttl(keys.history('h1'));
    expect(t).toBeGreaterThan(TTL.historySeconds - 60);
    expect(t).toBeLessThanOrEqual(TTL.historySeconds);
    const r3 = record('h0');
    await writeTurnCommit(session, input(r3, { history: history('3'), historyLimit: 0 }));
    expect(await listJson(keys.history('h0'))).toEqual([history('3')[1]]);
  });

  it('no history to add: the history key is not touched', async () => {
    const r = record('nohist');
    await writeTurnCommit(session, input(r));
    expect(await session.one((c) => c.exists(keys.history('nohist')))).toBe(0);
  });

  it("closes the turn's open claim and deletes its finish job", async () => {
    const r = record();
    await session.one((c) => c.zadd(keys.openClaims, { score: 1, member: r.turnId }));
    await session.one((c) => c.set(keys.claimJob(r.turnId), 'job'));
    await writeTurnCommit(session, input(r));
    expect(await session.one((c) => c.zscore(keys.openClaims, r.turnId))).toBeNull();
    expect(await session.one((c) => c.exists(keys.claimJob(r.turnId)))).toBe(0);
  });

  it('writes the outbox entry with its TTL and puts it in the pending set; none without an entry', async () => {
    const r = record();
    const entry = buildOutboxEntry({
      entryId: r.turnId,
      tenantId,
      channel: 'manychat',
      contactId: '7',
      actions: [],
      now: new Date('2026-03-01T10:00:02.000Z'),
    });
    await writeTurnCommit(session, input(r, { entry }));
    expect(await getJson(keys.outbox(r.turnId))).toEqual(entry);
    expect(await ttl(keys.outbox(r.turnId))).toBeGreaterThan(TTL.outboxSeconds - 60);
    expect(await session.one((c) => c.zscore(keys.outboxPending, r.turnId)).then(Number)).toBe(
      Date.parse(entry.createdAt),
    );
    const bare = record();
    await writeTurnCommit(session, input(bare));
    expect(await session.one((c) => c.exists(keys.outbox(bare.turnId)))).toBe(0);
    expect(await session.one((c) => c.zscore(keys.outboxPending, bare.turnId))).toBeNull();
  });

  it("a retention of one day bounds every key that holds the contact's words", async () => {
    const r = record('ret');
    const entry = buildOutboxEntry({
      entryId: r.turnId,
      tenantId,
      channel: 'manychat',
      contactId: 'ret',
      actions: [],
      now: new Date(),
    });
    await writeTurnCommit(session, input(r, { entry, history: history('ret'), retentionDays: 1 }));
    for (const key of [keys.turn(r.turnId), keys.contactTurns('ret'), keys.history('ret'), keys.outbox(r.turnId)]) {
      const t = await ttl(key);
      expect(t, key).toBeGreaterThan(0);
      expect(t, key).toBeLessThanOrEqual(24 * 3600);
    }
  });

  it('sets the handoff silence until the given time, rounded up to a whole second, at least one', async () => {
    const r = record('ho');
    const until = new Date(Date.now() + 3_600_000).toISOString();
    await writeTurnCommit(session, input(r, { handoffUntil: until }));
    expect(await session.one((c) => c.get(keys.handoff('ho')))).toBe(until);
    const t = await ttl(keys.handoff('ho'));
    expect(t).toBeGreaterThan(3500);
    expect(t).toBeLessThanOrEqual(3600);
    const past = record('ho2');
    await writeTurnCommit(session, input(past, { handoffUntil: new Date(Date.now() - 60_000).toISOString() }));
    expect(await ttl(keys.handoff('ho2'))).toBe(1);
    const none = record('ho3');
    await writeTurnCommit(session, input(none));
    expect(await session.one((c) => c.exists(keys.handoff('ho3')))).toBe(0);
  });
});

describe('publishCommitted: a failed publish is reported, never thrown', () => {
  const entry = buildOutboxEntry({
    entryId: 'turn_pub',
    tenantId: 'tpub',
    channel: 'manychat',
    contactId: '1',
    actions: [],
    now: new Date(),
  });
  it("publishes the entry's ids only", async () => {
    const sent: unknown[] = [];
    expect(await publishCommitted({ publish: async (m) => void sent.push(m) }, entry)).toEqual({ published: true });
    expect(sent).toEqual([{ tenantId: 'tpub', turnId: 'turn_pub' }]);
  });
  it('an error, or anything thrown, becomes its message', async () => {
    expect(await publishCommitted({ publish: async () => Promise.reject(new Error('QStash is down')) }, entry)).toEqual(
      { published: false, error: 'QStash is down' },
    );
    expect(await publishCommitted({ publish: async () => Promise.reject('nope') }, entry)).toEqual({
      published: false,
      error: 'nope',
    });
  });
});
