import { describe, expect, it } from 'vitest';
import { buildOutboxEntry } from '../../core/outbox-entry.js';
import { listDeadLetters } from '../../outbox/dead-letters.js';
import { commitNoticeEntry } from '../../outbox/commit-notice.js';
import { session } from '../support/workers-env.js';
import { appWith, outboxEntry } from './turn-helpers.js';
import {
  deliverMessenger,
  echoModel,
  newPsid,
  postMessenger,
  seedMessengerTenant,
  sentTo,
  textItem,
  turnIds,
  webhookBody,
  type MessengerTenant,
} from './messenger-helpers.js';

const HOUR = 3600_000;

async function systemSend(t: MessengerTenant, psid: string, args: Record<string, unknown>): Promise<string> {
  const entryId = `notice_${crypto.randomUUID().replace(/-/g, '')}`;
  const entry = buildOutboxEntry({
    entryId,
    tenantId: t.tenantId,
    channel: 'messenger',
    contactId: psid,
    now: new Date(),
    actions: [
      {
        id: `${entryId}.a`,
        tool: 'system:test',
        kind: 'send_content',
        args,
        effect: 'write',
        idempotent: false,
        gate: 'none',
        summary: 'a system message',
      },
    ],
  });
  expect(await commitNoticeEntry(session(), entry)).toBe(true);
  return entryId;
}

describe('the 24-hour window on Messenger, judged when the outbox sends', () => {
  it('a message Meta delivers 30 h late: the turn runs, its reply is dead with the reason, nothing is sent', async () => {
    const t = await seedMessengerTenant();
    const psid = await newPsid(t);
    const app = appWith(echoModel());
    await postMessenger(
      app,
      t,
      webhookBody(t, [textItem(t, psid, `m_${psid}_old`, 'hello from yesterday', Date.now() - 30 * HOUR)]),
    );
    await app.settle();
    const [turnId] = await turnIds(t.tenantId);
    const delivery = await deliverMessenger(t, turnId!);
    expect(delivery.outcome).toBe('done');
    expect(delivery.actions).toEqual([
      expect.objectContaining({
        kind: 'send_content',
        state: 'dead',
        detail: expect.stringContaining(
          "outside the 24-hour window (30 h since the contact's last message) and no message tag",
        ),
      }),
    ]);
    expect(await sentTo(psid)).toEqual([]);
    const dead = await listDeadLetters(session(), t.tenantId);
    expect(dead.map((d) => [d.turnId, d.state])).toEqual([[turnId, 'dead']]);
  });

  it('a deferred reply committed inside the window but sent after it closed is dead too', async () => {
    const t = await seedMessengerTenant();
    const psid = await newPsid(t);
    const app = appWith(echoModel());
    await postMessenger(app, t, webhookBody(t, [textItem(t, psid, `m_${psid}_slow`, 'hi', Date.now())]));
    await app.settle();
    const [turnId] = await turnIds(t.tenantId);
    expect((await outboxEntry(t.tenantId, turnId!))?.actions[0]?.args.lastInboundAt).toBeDefined();
    const delivery = await deliverMessenger(t, turnId!, { now: () => new Date(Date.now() + 25 * HOUR) });
    expect(delivery.actions[0]).toMatchObject({
      state: 'dead',
      detail: expect.stringContaining('outside the 24-hour window'),
    });
    expect(await sentTo(psid)).toEqual([]);
  });

  it('outside the window an allowed tag goes as MESSAGE_TAG; HUMAN_AGENT never carries automated content, even when allowed', async () => {
    const t = await seedMessengerTenant();
    const psid = await newPsid(t);
    const lastInboundAt = new Date(Date.now() - 26 * HOUR).toISOString();
    const tagged = await systemSend(t, psid, {
      text: 'Your booking is confirmed.',
      messageTag: 'CONFIRMED_EVENT_UPDATE',
      lastInboundAt,
    });
    const human = await systemSend(t, psid, {
      text: 'A bot pretending to be a person.',
      messageTag: 'HUMAN_AGENT',
      lastInboundAt,
    });
    const notAllowed = await systemSend(t, psid, { text: 'Promo!', messageTag: 'ACCOUNT_UPDATE', lastInboundAt });
    const allowed = ['CONFIRMED_EVENT_UPDATE', 'HUMAN_AGENT'];
    expect((await deliverMessenger(t, tagged, { allowedMessageTags: allowed })).actions[0]?.state).toBe('done');
    expect((await deliverMessenger(t, human, { allowedMessageTags: allowed })).actions[0]).toMatchObject({
      state: 'dead',
      detail: expect.stringContaining('HUMAN_AGENT is reserved for a human agent'),
    });
    expect((await deliverMessenger(t, notAllowed, { allowedMessageTags: allowed })).actions[0]).toMatchObject({
      state: 'dead',
      detail: expect.stringContaining('ACCOUNT_UPDATE is not allowed'),
    });
    expect((await sentTo(psid)).map((m) => [m.body.messaging_type, m.body.tag])).toEqual([
      ['MESSAGE_TAG', 'CONFIRMED_EVENT_UPDATE'],
    ]);
  });
});
