import { describe, expect, it } from 'vitest';
import { tenantKeys } from '../../core/storage/keys.js';
import { REPLY_ORDER_WAIT_MS } from '../../outbox/reply-order.js';
import { session } from '../support/workers-env.js';
import { appWith, outboxEntry, turnRecord } from './turn-helpers.js';
import {
  deliverMessenger,
  echoModel,
  newPsid,
  postMessenger,
  seedMessengerTenant,
  sentTo,
  textItem,
  textOf,
  turnIds,
  webhookBody,
  type MessengerTenant,
} from './messenger-helpers.js';

async function turnsByMid(t: MessengerTenant): Promise<Map<string, string>> {
  const byMid = new Map<string, string>();
  for (const id of await turnIds(t.tenantId))
    byMid.set((await turnRecord(t.tenantId, id)).messageKey.replace(/^mid:/, ''), id);
  return byMid;
}

describe('Messenger replies in message order per contact', () => {
  it('two entries, three messages from two contacts and an echo → three turns; replies in order per contact, each once', async () => {
    const t = await seedMessengerTenant();
    const [ada, bob] = [await newPsid(t), await newPsid(t)];
    const app = appWith(echoModel());
    const t0 = Date.now() - 10_000;
    const body = webhookBody(
      t,
      [
        textItem(t, ada, `m_${ada}_1`, 'first from Ada', t0),
        {
          sender: { id: t.pageId },
          recipient: { id: ada },
          timestamp: t0 + 1,
          message: { mid: 'm_echo', text: 'an earlier reply of ours', is_echo: true },
        },
        textItem(t, bob, `m_${bob}_1`, 'only one from Bob', t0 + 2),
      ],
      [textItem(t, ada, `m_${ada}_2`, 'second from Ada', t0 + 3)],
    );
    const res = await postMessenger(app, t, body);
    expect(await res.json()).toEqual({ received: { messages: 3, presses: 0, ignored: 1 } });
    await app.settle();
    const turns = await turnsByMid(t);
    expect([...turns.keys()].sort()).toEqual([`m_${ada}_1`, `m_${ada}_2`, `m_${bob}_1`].sort());

    // QStash may bring Ada's second reply first: it waits while her first has not gone out.
    const early = await deliverMessenger(t, turns.get(`m_${ada}_2`)!);
    expect(early.outcome).toBe('retry');
    expect(await sentTo(ada)).toEqual([]);
    // Bob's is not held up by Ada's.
    expect((await deliverMessenger(t, turns.get(`m_${bob}_1`)!)).outcome).toBe('done');
    expect((await deliverMessenger(t, turns.get(`m_${ada}_1`)!)).outcome).toBe('done');
    expect((await deliverMessenger(t, turns.get(`m_${ada}_2`)!)).outcome).toBe('done');
    // Redelivered (QStash at least once, the sweeper): nothing is sent twice.
    for (const id of turns.values()) expect((await deliverMessenger(t, id)).outcome).toBe('done');

    expect((await sentTo(ada)).map(textOf)).toEqual(['You said: first from Ada', 'You said: second from Ada']);
    expect((await sentTo(bob)).map(textOf)).toEqual(['You said: only one from Bob']);
    // Every message has left the order set once its reply was settled.
    expect(await session().one((r) => r.zcard(tenantKeys(t.tenantId).replyOrder(ada)))).toBe(0);
  });

  it('the wait is bounded: past REPLY_ORDER_WAIT_MS a reply goes out even if an earlier message never got one', async () => {
    const t = await seedMessengerTenant();
    const ada = await newPsid(t);
    // An earlier message whose turn died and was never finished still sits in the order set.
    await session().one((r) =>
      r.zadd(tenantKeys(t.tenantId).replyOrder(ada), { score: Date.now() - 60_000, member: 'f'.repeat(64) }),
    );
    const app = appWith(echoModel());
    await postMessenger(app, t, webhookBody(t, [textItem(t, ada, `m_${ada}_late`, 'hello?', Date.now())]));
    await app.settle();
    const [turnId] = await turnIds(t.tenantId);
    expect((await deliverMessenger(t, turnId!)).outcome).toBe('retry');
    const createdAt = Date.parse((await outboxEntry(t.tenantId, turnId!))!.createdAt);
    expect(
      (await deliverMessenger(t, turnId!, { now: () => new Date(createdAt + REPLY_ORDER_WAIT_MS + 1000) })).outcome,
    ).toBe('done');
    expect((await sentTo(ada)).map(textOf)).toEqual(['You said: hello?']);
  });

  it('a turn that delivers nothing (the contact is with a human) leaves the order at its commit', async () => {
    const t = await seedMessengerTenant();
    const ada = await newPsid(t);
    await session().one((r) =>
      r.set(tenantKeys(t.tenantId).handoff(ada), new Date(Date.now() + 3_600_000).toISOString(), { ex: 3600 }),
    );
    const app = appWith(echoModel());
    await postMessenger(app, t, webhookBody(t, [textItem(t, ada, `m_${ada}_h`, 'still there?', Date.now())]));
    await app.settle();
    const [turnId] = await turnIds(t.tenantId);
    expect(await outboxEntry(t.tenantId, turnId!)).toBeNull();
    expect(await session().one((r) => r.zcard(tenantKeys(t.tenantId).replyOrder(ada)))).toBe(0);
  });
});
