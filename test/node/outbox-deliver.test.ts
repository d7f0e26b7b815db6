import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ManyChatSandbox } from '../../dev/manychat-sandbox.js';
import { DUE_INDEX_KEY, tenantKeys } from '../../core/storage/keys.js';
import { outboxDueAt } from '../../core/storage/due-index.js';
import type { RedisSession } from '../../core/storage/redis-session.js';
import { listDeadLetters, redriveDeadLetter } from '../../outbox/dead-letters.js';
import { BUSY_RETRY_AFTER_SECONDS, deliverOutboxEntry, MANYCHAT_KEY_ALERT_ITEM } from '../../outbox/deliver-entry.js';
import { outboxKeys, readLedger } from '../../core/storage/outbox-store.js';

const leaseKey = (tenantId: string, turnId: string) => outboxKeys(tenantId).lease(turnId);
import { enterReplyOrder, REPLY_ORDER_RETRY_SECONDS } from '../../outbox/reply-order.js';
import type { ApiResult, ManyChatApi } from '../../core/actions/channel-api.js';
import { OutboxEntrySchema, type OutboxEntry } from '../../core/outbox-entry.js';
import type { OutboxPublisher } from '../../outbox/publisher.js';
import {
  action,
  callsFor,
  client,
  connect,
  dropTenant,
  entryFor,
  FLOW_BROCHURE,
  FLOW_TOUR,
  newSubscriber,
  performed,
  startTestSandbox,
  uniqueId,
  writeEntry,
} from './outbox-fixtures.js';

/**
 * deliverOutboxEntry against the real wire: the Upstash bridge over Redis and the ManyChat
 * sandbox. Every assertion about "performed" reads the sandbox's recorded calls.
 */
let sandbox: ManyChatSandbox;
let session: RedisSession;
const tenantId = uniqueId('obx');

beforeAll(async () => {
  sandbox = await startTestSandbox();
  session = connect();
});

afterAll(async () => {
  await dropTenant(session, tenantId);
  await sandbox.close();
});

function deliver(turnId: string, timeoutMs?: number) {
  return deliverOutboxEntry({ session, tenantId, turnId, apis: { manychat: client(sandbox, timeoutMs) } });
}

/** The sandbox's client, with `before` run ahead of every call: what another process does while a call is under way. */
function hookedClient(before: () => Promise<void>): ManyChatApi {
  const api = client(sandbox);
  return new Proxy(api, {
    get(target, prop, receiver) {
      const value: unknown = Reflect.get(target, prop, receiver);
      if (typeof value !== 'function') return value;
      return async (...args: unknown[]) => {
        await before();
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
}

const ledgerRow = (state: string, attempts = 1) => JSON.stringify({ state, at: new Date().toISOString(), attempts });
const leaseOf = (turnId: string) => session.one((r) => r.get(leaseKey(tenantId, turnId)));

async function storedEntry(turnId: string) {
  return OutboxEntrySchema.parse(
    JSON.parse((await session.one((r) => r.get<string>(tenantKeys(tenantId).outbox(turnId)))) ?? 'null'),
  );
}

async function isPending(turnId: string): Promise<boolean> {
  return (await session.one((r) => r.zscore(tenantKeys(tenantId).outboxPending, turnId))) !== null;
}

describe('deliverOutboxEntry', () => {
  it("a delivery that finds the lease held performs nothing and answers busy until the holder's lease runs out", async () => {
    const sub = newSubscriber(sandbox);
    const turnId = uniqueId('turn_');
    await writeEntry(
      session,
      entryFor(tenantId, turnId, sub, [action(turnId, 1, { kind: 'add_tag', args: { tag: 'interested' } })]),
    );
    await session.one((r) => r.set(leaseKey(tenantId, turnId), 'another-delivery', { px: 4_500 }));
    const busy = await deliver(turnId);
    expect(busy.outcome).toBe('busy');
    expect(busy.retryAfterSeconds).toBe(5);
    expect(callsFor(sandbox, sub)).toHaveLength(0);
    // The holder's lease is left alone.
    expect(await session.one((r) => r.get(leaseKey(tenantId, turnId)))).toBe('another-delivery');
    // A lease about to run out: come back after the minimum.
    await session.one((r) => r.set(leaseKey(tenantId, turnId), 'another-delivery', { px: 200 }));
    expect((await deliver(turnId)).retryAfterSeconds).toBe(BUSY_RETRY_AFTER_SECONDS);
    await session.one((r) => r.del(leaseKey(tenantId, turnId)));
    expect((await deliver(turnId)).outcome).toBe('done');
    expect(performed(callsFor(sandbox, sub))).toEqual(['addTagByName']);
    // The delivery released its own lease when it finished.
    expect(await session.one((r) => r.exists(leaseKey(tenantId, turnId)))).toBe(0);
  });

  it('performs every action once, in order, and closes the entry', async () => {
    const sub = newSubscriber(sandbox);
    const turnId = uniqueId('turn_');
    await writeEntry(
      session,
      entryFor(tenantId, turnId, sub, [
        action(turnId, 1, { kind: 'send_flow', args: { flowNs: FLOW_BROCHURE, flowName: 'brochure' } }),
        action(turnId, 2, { kind: 'add_tag', args: { tag: 'interested' } }),
        action(turnId, 3, { kind: 'set_field', args: { field: 'preferred_class', value: 'yoga' } }),
        action(turnId, 4, { kind: 'send_content', args: { text: 'See you soon!' } }),
        action(turnId, 5, { kind: 'remove_tag', args: { tag: 'human_handoff' } }),
      ]),
    );
    const result = await deliver(turnId);
    expect(result.outcome).toBe('done');
    expect(result.entryState).toBe('done');
    expect(result.actions.map((a) => a.state)).toEqual(['done', 'done', 'done', 'done', 'done']);
    expect(performed(callsFor(sandbox, sub))).toEqual([
      'sendFlow',
      'addTagByName',
      'setCustomFieldByName',
      'sendContent',
      'removeTagByName',
    ]);
    expect(sandbox.subscriber('2000001', sub)).toMatchObject({
      tags: ['interested'],
      customFields: { preferred_class: 'yoga' },
    });
    expect((await storedEntry(turnId)).state).toBe('done');
    expect(await isPending(turnId)).toBe(false);

    // QStash delivers at least once: a second delivery performs nothing.
    const again = await deliver(turnId);
    expect(again.outcome).toBe('done');
    expect(callsFor(sandbox, sub)).toHaveLength(5);
  });

  it('sendFlow answering 429, then 503, then 200 is performed exactly once, and later actions wait for it', async () => {
    const sub = newSubscriber(sandbox);
    const turnId = uniqueId('turn_');
    await writeEntry(
      session,
      entryFor(tenantId, turnId, sub, [
        action(turnId, 1, { kind: 'send_flow', args: { flowNs: FLOW_TOUR, flowName: 'studio_tour' } }),
        action(turnId, 2, { kind: 'add_tag', args: { tag: 'interested' } }),
      ]),
    );
    sandbox.injectFault({ path: '/sendFlow', count: 1, kind: '429', retryAfterSeconds: 7 });
    sandbox.injectFault({ path: '/sendFlow', count: 1, kind: '503' });

    const first = await deliver(turnId);
    expect(first).toMatchObject({ outcome: 'retry', retryAfterSeconds: 7, entryState: 'pending' });
    expect(first.actions.map((a) => a.state)).toEqual(['pending', 'pending']);
    expect(first.actions[0]?.detail).toMatch(/HTTP 429/);

    const second = await deliver(turnId);
    expect(second.outcome).toBe('retry');
    expect(second.retryAfterSeconds).toBeUndefined();
    expect(second.actions[0]?.detail).toMatch(/HTTP 503/);

    const third = await deliver(turnId);
    expect(third.outcome).toBe('done');
    expect(third.actions.map((a) => [a.state, a.attempts])).toEqual([
      ['done', 3],
      ['done', 1],
    ]);
    const calls = callsFor(sandbox, sub);
    expect(calls.map((c) => `${c.path.split('/').pop()}:${c.status}`)).toEqual([
      'sendFlow:429',
      'sendFlow:503',
      'sendFlow:200',
      'addTagByName:200',
    ]);
    expect(performed(calls)).toEqual(['sendFlow', 'addTagByName']);
    expect((await storedEntry(turnId)).attempts).toBe(3);
  });

  for (const status of ['500', '502', '504'] as const) {
    it(`a send answering ${status} may have been performed: it becomes unknown, is never resent, and later actions still run`, async () => {
      const sub = newSubscriber(sandbox);
      const turnId = uniqueId('turn_');
      await writeEntry(
        session,
        entryFor(tenantId, turnId, sub, [
          action(turnId, 1, { kind: 'send_flow', args: { flowNs: FLOW_TOUR, flowName: 'studio_tour' } }),
          action(turnId, 2, { kind: 'add_tag', args: { tag: 'interested' } }),
        ]),
      );
      sandbox.injectFault({ path: '/sendFlow', count: 1, kind: status });
      const first = await deliver(turnId);
      expect(first.outcome).toBe('done');
      expect(first.entryState).toBe('failed');
      expect(first.actions.map((a) => a.state)).toEqual(['unknown', 'done']);
      expect(first.actions[0]?.detail).toMatch(new RegExp(`^HTTP ${status}.*not resent`));
      // Delivered again (QStash at least once, a sweep): the send is not tried a second time.
      expect((await deliver(turnId)).outcome).toBe('done');
      expect(callsFor(sandbox, sub).filter((c) => c.path.endsWith('/sendFlow'))).toHaveLength(1);
      const letters = await listDeadLetters(session, tenantId);
      expect(letters.find((l) => l.turnId === turnId)).toMatchObject({
        state: 'unknown',
        kind: 'send_flow',
        idempotent: false,
      });
    });
  }

  it('a tag answering 500 twice is retried until performed', async () => {
    const sub = newSubscriber(sandbox);
    const turnId = uniqueId('turn_');
    await writeEntry(
      session,
      entryFor(tenantId, turnId, sub, [action(turnId, 1, { kind: 'add_tag', args: { tag: 'interested' } })]),
    );
    sandbox.injectFault({ path: '/addTagByName', count: 2, kind: '500' });
    expect((await deliver(turnId)).outcome).toBe('retry');
    expect((await deliver(turnId)).outcome).toBe('retry');
    const done = await deliver(turnId);
    expect(done.outcome).toBe('done');
    expect(done.actions[0]).toMatchObject({ state: 'done', attempts: 3 });
    expect(performed(callsFor(sandbox, sub))).toEqual(['addTagByName']);
    expect(sandbox.subscriber('2000001', sub)?.tags).toEqual(['interested']);
  });

  it('a crash between claim and call: the send becomes unknown and is never resent; an idempotent action is performed', async () => {
    const sub = newSubscriber(sandbox);
    const turnId = uniqueId('turn_');
    const send = action(turnId, 1, { kind: 'send_flow', args: { flowNs: FLOW_BROCHURE, flowName: 'brochure' } });
    const tag = action(turnId, 2, { kind: 'add_tag', args: { tag: 'interested' } });
    await writeEntry(session, entryFor(tenantId, turnId, sub, [send, tag]));
    // What an isolate that died right after claiming leaves behind.
    const claimed = JSON.stringify({ state: 'claimed', at: new Date().toISOString(), attempts: 1 });
    await session.one((r) => r.hset(tenantKeys(tenantId).ledger(turnId), { [send.id]: claimed, [tag.id]: claimed }));

    const result = await deliver(turnId);
    expect(result.outcome).toBe('done');
    expect(result.entryState).toBe('failed');
    expect(result.actions.map((a) => a.state)).toEqual(['unknown', 'done']);
    expect(result.actions[0]?.detail).toMatch(/may have been performed/);
    expect(performed(callsFor(sandbox, sub))).toEqual(['addTagByName']);

    // Not resent on a later delivery either.
    await deliver(turnId);
    expect(callsFor(sandbox, sub).filter((c) => c.path.endsWith('/sendFlow'))).toHaveLength(0);

    // Visible to the tenant: in the dead-letter list and the ledger.
    const letters = await listDeadLetters(session, tenantId);
    expect(letters.find((l) => l.actionId === send.id)).toMatchObject({
      state: 'unknown',
      currentState: 'unknown',
      kind: 'send_flow',
      idempotent: false,
      contactId: sub,
    });
    expect((await readLedger({ session, tenantId, turnId })).get(send.id)?.state).toBe('unknown');
  });

  it('a send that times out becomes unknown (at most once); an idempotent one that times out is retried', async () => {
    const sub = newSubscriber(sandbox);
    const turnId = uniqueId('turn_');
    await writeEntry(
      session,
      entryFor(tenantId, turnId, sub, [
        action(turnId, 1, { kind: 'send_content', args: { text: 'Hello' } }),
        action(turnId, 2, { kind: 'add_tag', args: { tag: 'interested' } }),
      ]),
    );
    sandbox.injectFault({ path: '/sendContent', count: 1, kind: 'hang' });
    sandbox.injectFault({ path: '/addTagByName', count: 1, kind: 'hang' });
    const first = await deliver(turnId, 300);
    expect(first.outcome).toBe('retry');
    expect(first.actions.map((a) => a.state)).toEqual(['unknown', 'pending']);
    expect(first.actions[0]?.detail).toMatch(/^no answer within 300 ms.*; the call may have been performed/);

    const second = await deliver(turnId, 300);
    expect(second.outcome).toBe('done');
    expect(second.entryState).toBe('failed');
    expect(second.actions.map((a) => a.state)).toEqual(['unknown', 'done']);
    const calls = callsFor(sandbox, sub);
    expect(calls.filter((c) => c.path.endsWith('/sendContent'))).toHaveLength(1);
    expect(performed(calls)).toEqual(['addTagByName']);
  });

  it("a permanent refusal is dead with the API's words; later actions still run; 3011 outside the 24 h window is dead", async () => {
    const sub = newSubscriber(sandbox, { lastInteraction: new Date(Date.now() - 2 * 86_400_000).toISOString() });
    const turnId = uniqueId('turn_');
    await writeEntry(
      session,
      entryFor(tenantId, turnId, sub, [
        action(turnId, 1, { kind: 'send_content', args: { text: 'Late hello' } }),
        action(turnId, 2, { kind: 'add_tag', args: { tag: 'no_such_tag' } }),
        action(turnId, 3, { kind: 'set_field', args: { field: 'preferred_class', value: 'pilates' } }),
      ]),
    );
    const result = await deliver(turnId);
    expect(result.outcome).toBe('done');
    expect(result.entryState).toBe('failed');
    expect(result.actions.map((a) => a.state)).toEqual(['dead', 'dead', 'done']);
    expect(result.actions[0]?.detail).toMatch(/HTTP 400 code 3011: .*24 hours/);
    expect(result.actions[1]?.detail).toMatch(/Tag does not exist: "no_such_tag"/);
    expect(performed(callsFor(sandbox, sub))).toEqual(['setCustomFieldByName']);
    const letters = (await listDeadLetters(session, tenantId)).filter((l) => l.turnId === turnId);
    expect(letters.map((l) => [l.actionId, l.state]).sort()).toEqual([
      [`${turnId}.a1`, 'dead'],
      [`${turnId}.a2`, 'dead'],
    ]);
  });

  it('an action with malformed arguments is dead without a call', async () => {
    const sub = newSubscriber(sandbox);
    const turnId = uniqueId('turn_');
    await writeEntry(
      session,
      entryFor(tenantId, turnId, sub, [action(turnId, 1, { kind: 'send_flow', args: { flowName: 'brochure' } })]),
    );
    const result = await deliver(turnId);
    expect(result.actions[0]).toMatchObject({ state: 'dead' });
    expect(result.actions[0]?.detail).toMatch(/not sent: invalid send_flow arguments/);
    expect(callsFor(sandbox, sub)).toHaveLength(0);
  });

  it('live_chat is recorded as done without a call (ManyChat has no such endpoint)', async () => {
    const sub = newSubscriber(sandbox);
    const turnId = uniqueId('turn_');
    await writeEntry(session, entryFor(tenantId, turnId, sub, [action(turnId, 1, { kind: 'live_chat', args: {} })]));
    const result = await deliver(turnId);
    expect(result.actions[0]).toMatchObject({ state: 'done' });
    expect(result.actions[0]?.detail).toMatch(/nothing was called/);
    expect(callsFor(sandbox, sub)).toHaveLength(0);
  });

  it('the same delivery 10 times at once performs each action once', async () => {
    const sub = newSubscriber(sandbox);
    const turnId = uniqueId('turn_');
    await writeEntry(
      session,
      entryFor(tenantId, turnId, sub, [
        action(turnId, 1, { kind: 'send_flow', args: { flowNs: FLOW_BROCHURE, flowName: 'brochure' } }),
        action(turnId, 2, { kind: 'add_tag', args: { tag: 'interested' } }),
        action(turnId, 3, { kind: 'send_content', args: { text: 'Enjoy the brochure' } }),
      ]),
    );
    const results = await Promise.all(Array.from({ length: 10 }, () => deliver(turnId)));
    const outcomes = results.map((r) => r.outcome);
    // One holds the lease and works; the rest answer busy (or done, if they read after it finished).
    expect(outcomes.every((o) => o === 'done' || o === 'busy')).toBe(true);
    expect(outcomes.filter((o) => o === 'busy').length).toBeGreaterThan(0);
    expect(
      results
        .filter((r) => r.outcome === 'done')
        .every((r) => r.actions.every((a) => a.state === 'done' && a.attempts === 1)),
    ).toBe(true);
    // The busy ones come back later (QStash retries) and find the work done.
    const later = await Promise.all(Array.from({ length: 9 }, () => deliver(turnId)));
    expect(new Set(later.map((r) => r.outcome))).toEqual(new Set(['done']));
    expect(performed(callsFor(sandbox, sub))).toEqual(['sendFlow', 'addTagByName', 'sendContent']);
    expect(callsFor(sandbox, sub)).toHaveLength(3);
  });

  it('an entry that does not exist is not_found and leaves the pending set', async () => {
    const turnId = uniqueId('turn_');
    await session.one((r) => r.zadd(tenantKeys(tenantId).outboxPending, { score: Date.now(), member: turnId }));
    const result = await deliver(turnId);
    expect(result).toMatchObject({ outcome: 'not_found', actions: [] });
    expect(await isPending(turnId)).toBe(false);
  });
});

describe('re-driving dead letters', () => {
  const published: { tenantId: string; turnId: string }[] = [];
  const publisher: OutboxPublisher = {
    publish: async (message) => {
      published.push(message);
    },
  };

  it('a dead idempotent action goes back to pending, off the list, is published and then performed', async () => {
    const sub = newSubscriber(sandbox);
    const turnId = uniqueId('turn_');
    const tag = action(turnId, 1, { kind: 'add_tag', args: { tag: 'vip' } });
    await writeEntry(session, entryFor(tenantId, turnId, sub, [tag]));
    expect((await deliver(turnId)).actions[0]?.state).toBe('dead'); // the page has no "vip" tag yet

    sandbox.addPage({
      pageId: '2000001',
      apiKey: '2000001:outbox-test-key',
      tags: [
        { id: 1, name: 'interested' },
        { id: 2, name: 'human_handoff' },
        { id: 3, name: 'vip' },
      ],
      customFields: [{ id: 11, name: 'preferred_class', type: 'text' }],
      flows: [FLOW_BROCHURE, FLOW_TOUR],
    });
    const redriven = await redriveDeadLetter({ session, publisher, tenantId, turnId, actionId: tag.id });
    expect(redriven).toMatchObject({ ok: true, state: 'pending', published: true });
    expect(published).toContainEqual({ tenantId, turnId });
    expect(await isPending(turnId)).toBe(true);
    expect((await listDeadLetters(session, tenantId)).some((l) => l.actionId === tag.id)).toBe(false);

    const result = await deliver(turnId);
    expect(result).toMatchObject({ outcome: 'done', entryState: 'done' });
    expect(result.actions[0]).toMatchObject({ state: 'done', attempts: 2 });
    expect(performed(callsFor(sandbox, sub))).toEqual(['addTagByName']);
  });

  it('an unknown send is re-driven only with sendAnyway', async () => {
    const sub = newSubscriber(sandbox);
    const turnId = uniqueId('turn_');
    const send = action(turnId, 1, { kind: 'send_flow', args: { flowNs: FLOW_BROCHURE, flowName: 'brochure' } });
    await writeEntry(session, entryFor(tenantId, turnId, sub, [send]));
    await session.one((r) =>
      r.hset(tenantKeys(tenantId).ledger(turnId), {
        [send.id]: JSON.stringify({ state: 'claimed', at: new Date().toISOString(), attempts: 1 }),
      }),
    );
    expect((await deliver(turnId)).actions[0]?.state).toBe('unknown');

    const refused = await redriveDeadLetter({ session, publisher, tenantId, turnId, actionId: send.id });
    expect(refused).toMatchObject({ ok: false, status: 409 });
    expect(refused.ok ? '' : refused.error).toMatch(/sendAnyway/);
    expect(callsFor(sandbox, sub)).toHaveLength(0);

    const forced = await redriveDeadLetter({
      session,
      publisher,
      tenantId,
      turnId,
      actionId: send.id,
      sendAnyway: true,
    });
    expect(forced).toMatchObject({ ok: true, state: 'pending' });
    expect((await deliver(turnId)).actions[0]).toMatchObject({ state: 'done' });
    expect(performed(callsFor(sandbox, sub))).toEqual(['sendFlow']);
  });

  it('a done action cannot be re-driven', async () => {
    const sub = newSubscriber(sandbox);
    const turnId = uniqueId('turn_');
    const tag = action(turnId, 1, { kind: 'add_tag', args: { tag: 'interested' } });
    await writeEntry(session, entryFor(tenantId, turnId, sub, [tag]));
    await deliver(turnId);
    expect(await redriveDeadLetter({ session, publisher, tenantId, turnId, actionId: tag.id })).toMatchObject({
      ok: false,
      status: 409,
    });
    expect(await redriveDeadLetter({ session, publisher, tenantId, turnId, actionId: 'nope' })).toMatchObject({
      ok: false,
      status: 404,
    });
  });
});

describe('deliverOutboxEntry: the lease, the close and the reply order (issue 22)', () => {
  it('an entry whose actions all settled but that was never closed (a crash before the close) is closed by the next delivery', async () => {
    // Rule: a settled entry leaves the pending set with its final state, or the sweeper publishes it for ever.
    const sub = newSubscriber(sandbox);
    const turnId = uniqueId('turn_');
    const tag = action(turnId, 1, { kind: 'add_tag', args: { tag: 'interested' } });
    const send = action(turnId, 2, { kind: 'send_flow', args: { flowNs: FLOW_BROCHURE, flowName: 'brochure' } });
    await writeEntry(session, entryFor(tenantId, turnId, sub, [tag, send]));
    await session.one((r) =>
      r.hset(tenantKeys(tenantId).ledger(turnId), { [tag.id]: ledgerRow('done'), [send.id]: ledgerRow('dead') }),
    );
    const result = await deliver(turnId);
    expect(result).toMatchObject({ outcome: 'done', entryState: 'failed' });
    expect(callsFor(sandbox, sub)).toHaveLength(0);
    expect(await storedEntry(turnId)).toMatchObject({ state: 'failed', attempts: 1 });
    expect(await isPending(turnId)).toBe(false);
    expect(await leaseOf(turnId)).toBeNull();
  });

  it('an unclosed settled entry whose lease another delivery holds: answered done with the state its rows give, left to the holder', async () => {
    // Rule: nothing is left to perform, so a duplicate says done (not busy) and the state it reports is the rows', not the stale `pending`.
    const sub = newSubscriber(sandbox);
    const turnId = uniqueId('turn_');
    const tag = action(turnId, 1, { kind: 'add_tag', args: { tag: 'interested' } });
    await writeEntry(session, entryFor(tenantId, turnId, sub, [tag]));
    await session.one((r) => r.hset(tenantKeys(tenantId).ledger(turnId), { [tag.id]: ledgerRow('unknown') }));
    await session.one((r) => r.set(leaseKey(tenantId, turnId), 'another-delivery', { px: 10_000 }));
    const before = session.roundTrips;
    const result = await deliver(turnId);
    expect(result).toMatchObject({ outcome: 'done', entryState: 'failed' });
    // Answered in the one round trip that opens a delivery: no release of a lease it does not hold.
    expect(session.roundTrips - before).toBe(1);
    expect(await leaseOf(turnId)).toBe('another-delivery');
    expect((await storedEntry(turnId)).state).toBe('pending');
  });

  it("a repeated delivery of a closed entry lets its lease go, and a delivery keeps the entry's expiry", async () => {
    // Rule: a lease left behind would make every later delivery of the entry answer busy for 30 s;
    // the entry must still expire (it holds the contact's words).
    const sub = newSubscriber(sandbox);
    const turnId = uniqueId('turn_');
    await writeEntry(
      session,
      entryFor(tenantId, turnId, sub, [action(turnId, 1, { kind: 'add_tag', args: { tag: 'interested' } })]),
    );
    expect((await deliver(turnId)).outcome).toBe('done');
    expect((await deliver(turnId)).outcome).toBe('done');
    expect(await leaseOf(turnId)).toBeNull();
    // The repeat wrote nothing: the entry counts the one delivery that did the work.
    expect(await storedEntry(turnId)).toMatchObject({ state: 'done', attempts: 1 });
    expect(await session.one((r) => r.ttl(tenantKeys(tenantId).outbox(turnId)))).toBeGreaterThan(0);
  });

  it("a retry keeps the entry in the pending set, with the API's words and Retry-After in the detail", async () => {
    // Rule: an entry not settled stays for the sweeper (if QStash gives up, it is published again).
    const sub = newSubscriber(sandbox);
    const turnId = uniqueId('turn_');
    await writeEntry(
      session,
      entryFor(tenantId, turnId, sub, [action(turnId, 1, { kind: 'add_tag', args: { tag: 'interested' } })]),
    );
    sandbox.injectFault({ path: '/addTagByName', count: 1, kind: '429', retryAfterSeconds: 9 });
    sandbox.injectFault({ path: '/addTagByName', count: 1, kind: '503' });
    const first = await deliver(turnId);
    expect(first).toMatchObject({ outcome: 'retry', retryAfterSeconds: 9, entryState: 'pending' });
    expect(first.actions[0]?.detail).toMatch(/^HTTP 429: .*\(Retry-After 9 s\)$/);
    expect(await isPending(turnId)).toBe(true);
    const second = await deliver(turnId);
    expect(second.actions[0]?.detail).toBe('HTTP 503: Service unavailable (injected fault)');
    // No Retry-After from the API: none in the result (the route then sends none of its own making).
    expect(second.outcome).toBe('retry');
    expect(Object.keys(second)).not.toContain('retryAfterSeconds');
    expect(await isPending(turnId)).toBe(true);
  });

  it('an entry that does not exist, or does not parse, lets the lease go and says which', async () => {
    const missing = uniqueId('turn_');
    const missingResult = await deliver(missing);
    expect(missingResult.problem).toBe(`no outbox entry for turn "${missing}"`);
    expect(await leaseOf(missing)).toBeNull();
    const garbled = uniqueId('turn_');
    await session.multi((m) => {
      m.set(tenantKeys(tenantId).outbox(garbled), '{"turnId":"not an entry"}');
      m.zadd(tenantKeys(tenantId).outboxPending, { score: Date.now(), member: garbled });
    });
    const garbledResult = await deliver(garbled);
    expect(garbledResult).toMatchObject({
      outcome: 'not_found',
      problem: 'the stored outbox entry does not match its schema',
    });
    // Left for inspection, but off the pending set.
    expect(await session.one((r) => r.exists(tenantKeys(tenantId).outbox(garbled)))).toBe(1);
    expect(await isPending(garbled)).toBe(false);
    expect(await leaseOf(garbled)).toBeNull();
  });

  it("a delivery that loses its lease mid-entry starts no further call and answers busy; the new holder's lease stays", async () => {
    // Rule: only the lease holder may start a call (an isolate frozen past its lease must not send twice).
    const sub = newSubscriber(sandbox);
    const turnId = uniqueId('turn_');
    const first = action(turnId, 1, { kind: 'add_tag', args: { tag: 'interested' } });
    const second = action(turnId, 2, { kind: 'send_content', args: { text: 'after the tag' } });
    await writeEntry(session, entryFor(tenantId, turnId, sub, [first, second]));
    let taken = false;
    const manychat = hookedClient(async () => {
      if (taken) return;
      taken = true;
      await session.one((r) => r.set(leaseKey(tenantId, turnId), 'the-new-holder', { px: 10_000 }));
    });
    const result = await deliverOutboxEntry({ session, tenantId, turnId, apis: { manychat } });
    expect(result).toMatchObject({
      outcome: 'busy',
      retryAfterSeconds: BUSY_RETRY_AFTER_SECONDS,
      entryState: 'pending',
    });
    expect(result.actions.map((a) => a.state)).toEqual(['done', 'pending']);
    expect(performed(callsFor(sandbox, sub))).toEqual(['addTagByName']);
    expect(await leaseOf(turnId)).toBe('the-new-holder');
    // Not closed by the delivery that lost the lease.
    expect(await storedEntry(turnId)).toMatchObject({ state: 'pending', attempts: 0 });
    expect(await isPending(turnId)).toBe(true);
  });

  it('a delivery that lost its lease stops even when the new holder already settled the rest: it does not close the entry', async () => {
    // Rule: only the lease holder writes the entry's state; the lease is checked before the row.
    const sub = newSubscriber(sandbox);
    const turnId = uniqueId('turn_');
    const first = action(turnId, 1, { kind: 'add_tag', args: { tag: 'interested' } });
    const last = action(turnId, 2, { kind: 'add_tag', args: { tag: 'interested' } });
    await writeEntry(session, entryFor(tenantId, turnId, sub, [first, last]));
    let taken = false;
    const manychat = hookedClient(async () => {
      if (taken) return;
      taken = true;
      await session.one((r) => r.set(leaseKey(tenantId, turnId), 'the-new-holder', { px: 10_000 }));
      await session.one((r) => r.hset(tenantKeys(tenantId).ledger(turnId), { [last.id]: ledgerRow('done') }));
    });
    const result = await deliverOutboxEntry({ session, tenantId, turnId, apis: { manychat } });
    expect(result.outcome).toBe('busy');
    expect(await storedEntry(turnId)).toMatchObject({ state: 'pending', attempts: 0 });
    expect(await leaseOf(turnId)).toBe('the-new-holder');
  });

  it('an action another delivery settled meanwhile is skipped; one it claimed stops this delivery', async () => {
    // Rule: the ledger row, not this delivery's snapshot, decides: a settled row is never performed
    // again, and a row claimed elsewhere is that delivery's to finish.
    const sub = newSubscriber(sandbox);
    const turnId = uniqueId('turn_');
    const [a1, a2, a3] = [1, 2, 3].map((n) => action(turnId, n, { kind: 'add_tag', args: { tag: 'interested' } }));
    await writeEntry(session, entryFor(tenantId, turnId, sub, [a1!, a2!, a3!]));
    let calls = 0;
    const manychat = hookedClient(async () => {
      calls++;
      if (calls === 1)
        await session.one((r) => r.hset(tenantKeys(tenantId).ledger(turnId), { [a2!.id]: ledgerRow('done') }));
    });
    const settled = await deliverOutboxEntry({ session, tenantId, turnId, apis: { manychat } });
    expect(settled.outcome).toBe('done');
    expect(callsFor(sandbox, sub)).toHaveLength(2);

    const other = uniqueId('turn_');
    const b1 = action(other, 1, { kind: 'add_tag', args: { tag: 'interested' } });
    // A send: an idempotent action's stale claim would be taken over, a send's never.
    const b2 = action(other, 2, { kind: 'send_content', args: { text: 'claimed elsewhere' } });
    const b3 = action(other, 3, { kind: 'add_tag', args: { tag: 'interested' } });
    await writeEntry(session, entryFor(tenantId, other, sub, [b1, b2, b3]));
    let otherCalls = 0;
    const claiming = hookedClient(async () => {
      otherCalls++;
      if (otherCalls === 1)
        await session.one((r) => r.hset(tenantKeys(tenantId).ledger(other), { [b2.id]: ledgerRow('claimed') }));
    });
    const stopped = await deliverOutboxEntry({ session, tenantId, turnId: other, apis: { manychat: claiming } });
    expect(stopped.outcome).toBe('busy');
    expect(otherCalls).toBe(1);
    expect(stopped.actions.map((a) => a.state)).toEqual(['done', 'claimed', 'pending']);
    // It still held the lease: it lets it go, so the delivery that claimed the row is not kept waiting.
    expect(await leaseOf(other)).toBeNull();
  });

  it('an ordered reply waits while an earlier message of the contact waits for its own; once settled it leaves the order', async () => {
    // Rule (reply order): a later message's reply is never delivered before an earlier one's.
    const sub = newSubscriber(sandbox);
    const turnId = uniqueId('turn_');
    const sequence = { member: 'b'.repeat(64), at: 2_000 };
    await writeEntry(session, {
      ...entryFor(tenantId, turnId, sub, [action(turnId, 1, { kind: 'add_tag', args: { tag: 'interested' } })]),
      sequence,
    });
    await enterReplyOrder(session, tenantId, sub, { member: 'a'.repeat(64), at: 1_000 });
    await enterReplyOrder(session, tenantId, sub, sequence);
    const waiting = await deliver(turnId);
    expect(waiting).toMatchObject({
      outcome: 'retry',
      retryAfterSeconds: REPLY_ORDER_RETRY_SECONDS,
      entryState: 'pending',
    });
    expect(callsFor(sandbox, sub)).toHaveLength(0);
    expect(await leaseOf(turnId)).toBeNull();

    await session.one((r) => r.zrem(tenantKeys(tenantId).replyOrder(sub), 'a'.repeat(64)));
    expect((await deliver(turnId)).outcome).toBe('done');
    expect(await session.one((r) => r.zrange(tenantKeys(tenantId).replyOrder(sub), 0, -1))).toEqual([]);
  });

  it('an ordered entry that already started is not held back by a message that arrived before it', async () => {
    // Rule: the wait is only before the first action; an entry half performed finishes (its first
    // part is already out, holding the rest would split the reply).
    const sub = newSubscriber(sandbox);
    const turnId = uniqueId('turn_');
    const [a1, a2] = [1, 2].map((n) => action(turnId, n, { kind: 'add_tag', args: { tag: 'interested' } }));
    const sequence = { member: 'd'.repeat(64), at: 2_000 };
    await writeEntry(session, { ...entryFor(tenantId, turnId, sub, [a1!, a2!]), sequence });
    await session.one((r) => r.hset(tenantKeys(tenantId).ledger(turnId), { [a1!.id]: ledgerRow('done') }));
    await enterReplyOrder(session, tenantId, sub, { member: 'c'.repeat(64), at: 1_000 });
    const result = await deliver(turnId);
    expect(result.outcome).toBe('done');
    expect(performed(callsFor(sandbox, sub))).toEqual(['addTagByName']);
  });

  it('the ledger of an entry with a retention shorter than the outbox TTL expires with the retention', async () => {
    // Rule: every key holding the contact's words expires within the tenant's retention.
    const sub = newSubscriber(sandbox);
    const turnId = uniqueId('turn_');
    await writeEntry(session, {
      ...entryFor(tenantId, turnId, sub, [action(turnId, 1, { kind: 'add_tag', args: { tag: 'interested' } })]),
      retentionDays: 1,
    });
    expect((await deliver(turnId)).outcome).toBe('done');
    const ttl = await session.one((r) => r.ttl(tenantKeys(tenantId).ledger(turnId)));
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(86_400);
  });

  it('settled actions are skipped without a claim: one round trip to open, two for each action performed, one to close', async () => {
    // Rule: a re-delivery after a partial run pays only for what is left to do.
    const sub = newSubscriber(sandbox);
    const turnId = uniqueId('turn_');
    const [a1, a2, a3] = [1, 2, 3].map((n) => action(turnId, n, { kind: 'add_tag', args: { tag: 'interested' } }));
    await writeEntry(session, entryFor(tenantId, turnId, sub, [a1!, a2!, a3!]));
    await session.one((r) =>
      r.hset(tenantKeys(tenantId).ledger(turnId), { [a1!.id]: ledgerRow('done'), [a2!.id]: ledgerRow('dead') }),
    );
    const before = session.roundTrips;
    const result = await deliver(turnId);
    expect(result).toMatchObject({ outcome: 'done', entryState: 'failed' });
    expect(session.roundTrips - before).toBe(1 + 2 + 1);
    expect(performed(callsFor(sandbox, sub))).toEqual(['addTagByName']);
  });

  it('a send that times out with no words from the client is unknown, and its detail says there was no answer', async () => {
    const sub = newSubscriber(sandbox);
    const turnId = uniqueId('turn_');
    await writeEntry(
      session,
      entryFor(tenantId, turnId, sub, [
        action(turnId, 1, { kind: 'send_flow', args: { flowNs: FLOW_BROCHURE, flowName: 'brochure' } }),
      ]),
    );
    const silent: ManyChatApi = { ...client(sandbox), sendFlow: async () => ({ ok: false, kind: 'timeout' }) };
    const result = await deliverOutboxEntry({ session, tenantId, turnId, apis: { manychat: silent } });
    expect(result).toMatchObject({ outcome: 'done', entryState: 'failed' });
    expect(result.actions[0]).toMatchObject({
      state: 'unknown',
      detail: 'no answer; the call may have been performed, so it is not resent',
    });
  });

  it('an action whose ledger row this code cannot read is never performed over: the delivery stops busy and calls nothing', async () => {
    // Rule: fail closed. The row may record a call already made; without reading it, no call is safe.
    const sub = newSubscriber(sandbox);
    const turnId = uniqueId('turn_');
    const send = action(turnId, 1, { kind: 'send_flow', args: { flowNs: FLOW_BROCHURE, flowName: 'brochure' } });
    await writeEntry(session, entryFor(tenantId, turnId, sub, [send]));
    await session.one((r) => r.hset(tenantKeys(tenantId).ledger(turnId), { [send.id]: ledgerRow('performing') }));
    const result = await deliver(turnId);
    expect(result).toMatchObject({ outcome: 'busy', entryState: 'pending' });
    expect(callsFor(sandbox, sub)).toHaveLength(0);
    expect(await leaseOf(turnId)).toBeNull();
  });
});

describe('delivery of a decided pending row re-checks each action against the current configuration (issue 28 item 2)', () => {
  it('an approved untag whose tag the tenant has since protected is dead, listed with why, not performed; nothing is sent to ManyChat', async () => {
    const { demoTenantConfig } = await import('../../dev/demo-tenant.js');
    const { parseTenantConfig } = await import('../../core/tenant/tenant-config.js');
    const demo = demoTenantConfig(tenantId);
    const parsed = parseTenantConfig({ ...demo, guardrails: { actions: { protectedTags: ['interested'] } } });
    if (!parsed.ok) throw new Error(parsed.problems.join('; '));
    const sub = newSubscriber(sandbox);
    const rowId = `ap_${uniqueId('x')}`;
    const untag = {
      ...action(rowId, 1, { kind: 'remove_tag', args: { tag: 'interested' } }),
      tool: 'untag_contact',
      effect: 'destructive' as const,
      gate: 'approval' as const,
    };
    await writeEntry(session, { ...entryFor(tenantId, rowId, sub, [untag]), stagedByTurnId: 'turn_earlier' });
    const result = await deliverOutboxEntry({
      session,
      tenantId,
      turnId: rowId,
      apis: { manychat: client(sandbox) },
      config: parsed.config,
    });
    expect(result.outcome).toBe('done');
    expect(result.actions.map((a) => a.state)).toEqual(['dead']);
    expect(result.actions[0]?.detail).toContain('no longer allows it');
    expect(result.actions[0]?.detail).toContain('tag "interested" is protected');
    expect(callsFor(sandbox, sub)).toHaveLength(0);
    expect((await listDeadLetters(session, tenantId)).some((d) => d.entryId === rowId)).toBe(true);
  });
});

/**
 * What a delivery reports to its caller (the dead letters it listed, the actions it settled, a
 * refused ManyChat key) and what it checks before a call (the signed row, the configuration), with
 * scripted API answers: the caller's alerts and audit are built from these.
 */
describe('deliverOutboxEntry: what it reports and what it checks before a call', () => {
  type Answer = (method: string, args: unknown[]) => ApiResult | Promise<ApiResult>;
  const ok: Answer = () => ({ ok: true });
  function scripted(answer: Answer = ok) {
    const calls: { method: string; args: unknown[] }[] = [];
    const call =
      (method: string) =>
      async (...args: unknown[]): Promise<ApiResult> => {
        calls.push({ method, args });
        return answer(method, args);
      };
    const manychat: ManyChatApi = {
      sendFlow: call('sendFlow'),
      sendContent: call('sendContent'),
      addTagByName: call('addTagByName'),
      removeTagByName: call('removeTagByName'),
      setCustomFieldByName: call('setCustomFieldByName'),
    };
    const messenger = {
      sendMessage: call('sendMessage'),
      senderAction: call('senderAction'),
      passThreadControl: call('passThreadControl'),
      takeThreadControl: call('takeThreadControl'),
    };
    const webhook = { post: call('post'), postToSealedUrl: call('postToSealedUrl') };
    return { apis: { manychat, messenger, webhook }, calls };
  }
  const refused = (status: number): ApiResult => ({ ok: false, kind: 'permanent', status, message: `HTTP ${status}` });
  const tagRefused =
    (tag: string, status: number): Answer =>
    (method, args) =>
      method === 'addTagByName' && args[1] === tag ? refused(status) : { ok: true };

  async function run(
    entry: OutboxEntry,
    answer?: Answer,
    extra: Partial<Parameters<typeof deliverOutboxEntry>[0]> = {},
  ) {
    await writeEntry(session, entry);
    const api = scripted(answer);
    const result = await deliverOutboxEntry({ session, tenantId, turnId: entry.turnId, apis: api.apis, ...extra });
    return { result, calls: api.calls };
  }
  const tags = (turnId: string, ...names: string[]) =>
    names.map((tag, i) => action(turnId, i + 1, { kind: 'add_tag', args: { tag } }));
  const markerKey = () => tenantKeys(tenantId).alertSent(MANYCHAT_KEY_ALERT_ITEM);
  const setMarker = () => session.one((r) => r.set(markerKey(), '1'));
  const marker = () => session.one((r) => r.get(markerKey()));

  it('lists the actions it settled (state, and detail when there is one) and the dead letters it wrote; nothing on a repeat', async () => {
    const turnId = uniqueId('turn_');
    const { result } = await run(entryFor(tenantId, turnId, '101', tags(turnId, 'a', 'b')), tagRefused('b', 400));
    expect(result.settled).toEqual([
      { id: `${turnId}.a1`, state: 'done' },
      { id: `${turnId}.a2`, state: 'dead', detail: 'HTTP 400: HTTP 400' },
    ]);
    expect(result.failures?.map((f) => [f.actionId, f.state, f.detail])).toEqual([
      [`${turnId}.a2`, 'dead', 'HTTP 400: HTTP 400'],
    ]);
    expect(result.keyRefused).toBeUndefined();
    const again = await deliverOutboxEntry({ session, tenantId, turnId, apis: scripted().apis });
    expect(again).not.toHaveProperty('settled');
    expect(again).not.toHaveProperty('failures');
  });

  it('a retry settles nothing, lists nothing and says nothing about the key', async () => {
    const turnId = uniqueId('turn_');
    await setMarker();
    const { result } = await run(entryFor(tenantId, turnId, '102', tags(turnId, 'a')), () => ({
      ok: false,
      kind: 'retryable',
      status: 429,
      message: 'slow down',
    }));
    expect(result.outcome).toBe('retry');
    expect(result).not.toHaveProperty('settled');
    expect(result).not.toHaveProperty('failures');
    expect(result).not.toHaveProperty('keyRefused');
    expect(await marker()).toBe('1');
  });

  it('ManyChat answering 401 or 403 is a refused key; another refusal, a webhook or Messenger 401 is not', async () => {
    for (const status of [401, 403]) {
      const turnId = uniqueId('turn_');
      const { result } = await run(entryFor(tenantId, turnId, '103', tags(turnId, 'a')), tagRefused('a', status));
      expect(result.keyRefused).toBe(true);
      expect(result.failures).toHaveLength(1);
    }
    const other = uniqueId('turn_');
    expect(
      (await run(entryFor(tenantId, other, '103', tags(other, 'a')), tagRefused('a', 404))).result,
    ).not.toHaveProperty('keyRefused');
    const hook = uniqueId('turn_');
    const notify = action(hook, 1, {
      kind: 'notify_webhook',
      tool: 'system:notify',
      args: { url: 'https://hooks.example/x', body: '{}', webhookId: 'w1', event: 'approval.created' },
    });
    const hooked = await run(entryFor(tenantId, hook, '103', [notify]), () => refused(401));
    expect(hooked.result.actions.map((a) => a.state)).toEqual(['dead']);
    expect(hooked.result).not.toHaveProperty('keyRefused');
    const page = uniqueId('turn_');
    const send = action(page, 1, { kind: 'send_content', args: { text: 'hi' } });
    const messenger = await run({ ...entryFor(tenantId, page, '103', [send]), channel: 'messenger' }, () =>
      refused(401),
    );
    expect(messenger.calls.map((c) => c.method)).toEqual(['sendMessage']);
    expect(messenger.result).not.toHaveProperty('keyRefused');
  });

  it("a ManyChat call the key gets through with ends the key's outage alert; a refusal, a note, a webhook or Messenger does not", async () => {
    const cleared = uniqueId('turn_');
    await setMarker();
    await run(entryFor(tenantId, cleared, '104', tags(cleared, 'a')));
    expect(await marker()).toBeNull();

    const mixed = uniqueId('turn_');
    await setMarker();
    await run(entryFor(tenantId, mixed, '104', tags(mixed, 'a', 'b')), tagRefused('b', 401));
    expect(await marker()).toBe('1');

    const noted = uniqueId('turn_');
    await run(entryFor(tenantId, noted, '104', [action(noted, 1, { kind: 'live_chat', args: {} })]));
    expect(await marker()).toBe('1');

    const hook = uniqueId('turn_');
    const notify = action(hook, 1, {
      kind: 'notify_webhook',
      tool: 'system:notify',
      args: { url: 'https://hooks.example/x', body: '{}', webhookId: 'w2', event: 'approval.created' },
    });
    const hooked = await run(entryFor(tenantId, hook, '104', [notify]));
    expect(hooked.calls.map((c) => c.method)).toEqual(['post']);
    expect(await marker()).toBe('1');

    const page = uniqueId('turn_');
    const send = action(page, 1, { kind: 'send_content', args: { text: 'hi' } });
    const messenger = await run({ ...entryFor(tenantId, page, '104', [send]), channel: 'messenger' });
    expect(messenger.result.actions.map((a) => a.state)).toEqual(['done']);
    expect(await marker()).toBe('1');
  });

  it("a send goes to the entry's channel and messaging window", async () => {
    const turnId = uniqueId('turn_');
    const send = action(turnId, 1, { kind: 'send_content', args: { text: 'hi' } });
    const at = '2026-01-01T10:00:00.000Z';
    const { calls } = await run({
      ...entryFor(tenantId, turnId, '105', [send]),
      surface: 'instagram',
      lastInboundAt: at,
    });
    expect(calls).toEqual([
      { method: 'sendContent', args: ['105', { text: 'hi' }, undefined, { channel: 'instagram', lastInboundAt: at }] },
    ]);
  });

  it('an entry near the end of its retention whose delivery loses its lease is left to the new holder, not given up', async () => {
    const turnId = uniqueId('turn_');
    const createdAt = new Date(Date.now() - (2 * 24 - 0.5) * 3600_000);
    const entry = { ...entryFor(tenantId, turnId, '108', tags(turnId, 'a', 'b'), createdAt), retentionDays: 2 };
    const { result } = await run(entry, async () => {
      await session.one((r) => r.set(leaseKey(tenantId, turnId), 'the-new-holder', { px: 10_000 }));
      return { ok: true };
    });
    expect(result.outcome).toBe('busy');
    expect(result.actions.map((a) => a.state)).toEqual(['done', 'pending']);
    expect(result).not.toHaveProperty('failures');
    expect((await listDeadLetters(session, tenantId)).filter((l) => l.entryId === turnId)).toEqual([]);
  });

  it("an action its signed row refuses is dead with the row's why and never called; system actions are not asked", async () => {
    const turnId = `ap_${uniqueId('x')}`;
    const gated = { ...action(turnId, 1, { kind: 'add_tag', args: { tag: 'vip' } }), gate: 'approval' as const };
    const notice = { ...action(turnId, 2, { kind: 'send_content', args: { text: 'done' } }), tool: 'system:notice' };
    const asked: string[] = [];
    const { result, calls } = await run(entryFor(tenantId, turnId, '106', [gated, notice]), ok, {
      signedRow: async (entry) => {
        expect(entry.turnId).toBe(turnId);
        return (a) => {
          asked.push(a.id);
          return `its approval ${turnId} is pending, not approved`;
        };
      },
    });
    expect(asked).toEqual([gated.id]);
    expect(result.actions.map((a) => [a.state, a.detail])).toEqual([
      ['dead', `not performed: its approval ${turnId} is pending, not approved`],
      ['done', undefined],
    ]);
    expect(calls.map((c) => c.method)).toEqual(['sendContent']);
    expect(result.failures?.map((f) => f.actionId)).toEqual([gated.id]);
  });

  it("the configuration re-check: only a decided row's entry, never its system actions; a refusal is listed", async () => {
    const { demoTenantConfig } = await import('../../dev/demo-tenant.js');
    const { parseTenantConfig } = await import('../../core/tenant/tenant-config.js');
    const parsed = parseTenantConfig({
      ...demoTenantConfig(tenantId),
      guardrails: { actions: { protectedTags: ['interested'] } },
    });
    if (!parsed.ok) throw new Error(parsed.problems.join('; '));
    const untag = (turnId: string) => ({
      ...action(turnId, 1, { kind: 'remove_tag', args: { tag: 'interested' } }),
      tool: 'untag_contact',
      effect: 'destructive' as const,
      gate: 'approval' as const,
    });
    // A turn's own commit was checked by the turn that staged it: not again.
    const own = uniqueId('turn_');
    const ownRun = await run(entryFor(tenantId, own, '107', [untag(own)]), ok, { config: parsed.config });
    expect(ownRun.result.actions.map((a) => a.state)).toEqual(['done']);
    // A decided row's: the untag is dead and listed; its system notice is performed.
    const row = `ap_${uniqueId('x')}`;
    const notice = {
      ...action(row, 2, { kind: 'send_content', args: { text: 'ok' } }),
      tool: 'system:approval-notice',
    };
    const rowRun = await run(
      { ...entryFor(tenantId, row, '107', [untag(row), notice]), stagedByTurnId: 'turn_x' },
      ok,
      {
        config: parsed.config,
      },
    );
    expect(rowRun.result.actions.map((a) => a.state)).toEqual(['dead', 'done']);
    expect(rowRun.calls.map((c) => c.method)).toEqual(['sendContent']);
    expect(rowRun.result.failures?.map((f) => f.actionId)).toEqual([`${row}.a1`]);
  });
});

describe('re-driving and listing dead letters: what is refused, what a re-drive writes', () => {
  const published: { message: unknown; opts: unknown }[] = [];
  const publisher: OutboxPublisher = {
    publish: async (message, opts) => {
      published.push({ message, opts });
    },
  };
  const keys = () => tenantKeys(tenantId);
  const setRow = (turnId: string, actionId: string, state: string) =>
    session.one((r) => r.hset(keys().ledger(turnId), { [actionId]: ledgerRow(state) }));
  async function entryWith(spec: Parameters<typeof action>[2], state?: string) {
    const turnId = uniqueId('turn_');
    const a = action(turnId, 1, spec);
    await session.one((r) =>
      r.set(keys().outbox(turnId), JSON.stringify({ ...entryFor(tenantId, turnId, '201', [a]), state: 'done' }), {
        ex: 3600,
      }),
    );
    if (state) await setRow(turnId, a.id, state);
    return { turnId, a };
  }
  const redrive = (turnId: string, actionId: string, extra: Partial<Parameters<typeof redriveDeadLetter>[0]> = {}) =>
    redriveDeadLetter({ session, publisher, tenantId, turnId, actionId, ...extra });

  it('refused, with why, and nothing written: no entry, no such action, an action not dead nor unknown', async () => {
    const before = published.length;
    expect(await redrive('turn_nowhere', 'x')).toEqual({
      ok: false,
      status: 404,
      error: 'no outbox entry for turn "turn_nowhere"',
    });
    const { turnId, a } = await entryWith({ kind: 'add_tag', args: { tag: 'vip' } });
    expect(await redrive(turnId, 'nope')).toEqual({
      ok: false,
      status: 404,
      error: `turn "${turnId}" has no action "nope"`,
    });
    expect(await redrive(turnId, a.id)).toEqual({
      ok: false,
      status: 409,
      error: `action "${a.id}" is not started; only dead or unknown actions can be re-driven`,
    });
    for (const state of ['done', 'pending', 'claimed']) {
      await setRow(turnId, a.id, state);
      expect(await redrive(turnId, a.id)).toEqual({
        ok: false,
        status: 409,
        error: `action "${a.id}" is ${state}; only dead or unknown actions can be re-driven`,
      });
    }
    // The entry was not put back to pending, nor published.
    expect((await storedEntry(turnId)).state).toBe('done');
    expect(await isPending(turnId)).toBe(false);
    expect(published).toHaveLength(before);
  });

  it('a send whose outcome is unknown needs sendAnyway, whatever its idempotent flag says; a dead send does not', async () => {
    const unknown = await entryWith(
      { kind: 'send_flow', args: { flowNs: FLOW_BROCHURE }, idempotent: true },
      'unknown',
    );
    expect(await redrive(unknown.turnId, unknown.a.id)).toEqual({
      ok: false,
      status: 409,
      error: `action "${unknown.a.id}" (send_flow) may already have been performed; re-drive it with "sendAnyway": true to send it again anyway`,
    });
    expect(await isPending(unknown.turnId)).toBe(false);
    const dead = await entryWith({ kind: 'send_flow', args: { flowNs: FLOW_BROCHURE } }, 'dead');
    expect(await redrive(dead.turnId, dead.a.id)).toMatchObject({ ok: true });
    const tag = await entryWith({ kind: 'add_tag', args: { tag: 'vip' } }, 'unknown');
    expect(await redrive(tag.turnId, tag.a.id)).toMatchObject({ ok: true });
  });

  it('a re-drive: the entry pending again (its expiry kept), in the pending set and the due index from now, published with its own label', async () => {
    const { turnId, a } = await entryWith({ kind: 'add_tag', args: { tag: 'vip' } }, 'dead');
    const now = new Date();
    await session.one((r) =>
      r.zadd(DUE_INDEX_KEY, { score: outboxDueAt(now.getTime()) + 3_600_000, member: tenantId }),
    );
    const before = published.length;
    expect(await redrive(turnId, a.id, { now })).toEqual({
      ok: true,
      turnId,
      actionId: a.id,
      state: 'pending',
      published: true,
    });
    expect((await storedEntry(turnId)).state).toBe('pending');
    const ttl = Number(await session.one((r) => r.ttl(keys().outbox(turnId))));
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(3600);
    expect(Number(await session.one((r) => r.zscore(keys().outboxPending, turnId)))).toBe(now.getTime());
    expect(Number(await session.one((r) => r.zscore(DUE_INDEX_KEY, tenantId)))).toBe(outboxDueAt(now.getTime()));
    expect(published.slice(before)).toEqual([
      { message: { tenantId, turnId }, opts: { attempt: expect.stringMatching(/^redrive\d+$/) } },
    ]);
    // An earlier due time of the tenant stays (LT).
    const again = await entryWith({ kind: 'add_tag', args: { tag: 'vip' } }, 'dead');
    await session.one((r) => r.zadd(DUE_INDEX_KEY, { score: 1000, member: tenantId }));
    await redrive(again.turnId, again.a.id, { now });
    expect(Number(await session.one((r) => r.zscore(DUE_INDEX_KEY, tenantId)))).toBe(1000);
  });

  it('a publish that fails is not fatal (the sweeper publishes it again); a row that changed meanwhile is refused', async () => {
    const { turnId, a } = await entryWith({ kind: 'add_tag', args: { tag: 'vip' } }, 'dead');
    const failing: OutboxPublisher = {
      publish: async () => {
        throw new Error('qstash down');
      },
    };
    expect(await redriveDeadLetter({ session, publisher: failing, tenantId, turnId, actionId: a.id })).toEqual({
      ok: true,
      turnId,
      actionId: a.id,
      state: 'pending',
      published: false,
      publishError: 'qstash down',
    });
    expect(await isPending(turnId)).toBe(true);

    const raced = await entryWith({ kind: 'add_tag', args: { tag: 'vip' } }, 'dead');
    const meanwhile = new Proxy(session, {
      get(target, prop, receiver) {
        if (prop === 'multi')
          return async (fn: Parameters<RedisSession['multi']>[0]) => {
            const out = await target.multi(fn);
            await setRow(raced.turnId, raced.a.id, 'done');
            return out;
          };
        const value: unknown = Reflect.get(target, prop, receiver);
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    });
    const before = published.length;
    expect(
      await redriveDeadLetter({ session: meanwhile, publisher, tenantId, turnId: raced.turnId, actionId: raced.a.id }),
    ).toEqual({
      ok: false,
      status: 409,
      error: `action "${raced.a.id}" changed state while being re-driven (now done)`,
    });
    expect(published).toHaveLength(before);

    // Its ledger row gone meanwhile (expired): refused the same way, saying so.
    const gone = await entryWith({ kind: 'add_tag', args: { tag: 'vip' } }, 'dead');
    const vanishing = new Proxy(session, {
      get(target, prop, receiver) {
        if (prop === 'multi')
          return async (fn: Parameters<RedisSession['multi']>[0]) => {
            const out = await target.multi(fn);
            await session.one((r) => r.del(keys().ledger(gone.turnId)));
            return out;
          };
        const value: unknown = Reflect.get(target, prop, receiver);
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    });
    expect(
      await redriveDeadLetter({ session: vanishing, publisher, tenantId, turnId: gone.turnId, actionId: gone.a.id }),
    ).toEqual({
      ok: false,
      status: 409,
      error: `action "${gone.a.id}" changed state while being re-driven (now absent)`,
    });
  });

  it('listDeadLetters: the newest `limit`, unreadable items skipped, each with its current ledger state or null once the row expired', async () => {
    const own = uniqueId('dl');
    const ownKeys = tenantKeys(own);
    const letter = (n: number) => ({
      tenantId: own,
      turnId: `turn_${n}`,
      actionId: `turn_${n}.a1`,
      contactId: '1',
      tool: 't',
      summary: 's',
      idempotent: true,
      state: 'dead',
      detail: 'd',
      at: new Date().toISOString(),
    });
    const counted = connect();
    expect(await listDeadLetters(counted, own)).toEqual([]);
    expect(counted.roundTrips).toBe(1);
    await session.pipeline((p) => {
      p.lpush(ownKeys.deadLetters, JSON.stringify(letter(1)));
      p.lpush(ownKeys.deadLetters, 'not a letter');
      p.lpush(ownKeys.deadLetters, JSON.stringify(letter(2)));
      p.lpush(ownKeys.deadLetters, JSON.stringify(letter(3)));
      p.hset(ownKeys.ledger('turn_3'), { 'turn_3.a1': ledgerRow('dead') });
    });
    const newest = await listDeadLetters(session, own, 2);
    expect(newest.map((l) => [l.actionId, l.currentState])).toEqual([
      ['turn_3.a1', 'dead'],
      ['turn_2.a1', null],
    ]);
    expect((await listDeadLetters(session, own)).map((l) => l.actionId)).toEqual([
      'turn_3.a1',
      'turn_2.a1',
      'turn_1.a1',
    ]);
    await dropTenant(session, own);
  });
});
