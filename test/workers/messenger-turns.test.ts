import { describe, expect, it } from 'vitest';
import { loadPinned } from '../../src/approvals/pinned-store.js';
import { reply, scriptedModel } from '../support/scripted-model.js';
import { session, workerEnv } from '../support/workers-env.js';
import { messengerQuickReplies } from '../../src/channels/messenger/quick-replies.js';
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
} from './messenger-helpers.js';

describe('a Messenger message runs the shared turn; its reply goes through the outbox (Send API)', () => {
  it('answers 200 at once, runs the turn after, and delivers the reply as RESPONSE, once', async () => {
    const t = await seedMessengerTenant();
    const psid = await newPsid(t);
    const app = appWith(echoModel());
    const sentAt = Date.now() - 5_000;
    const res = await postMessenger(app, t, webhookBody(t, [textItem(t, psid, `m_${psid}_a`, 'hello there', sentAt)]));
    expect(res.status).toBe(200);
    await app.settle();
    const [turnId] = await turnIds(t.tenantId);
    const record = await turnRecord(t.tenantId, turnId!);
    expect(record.inbound).toMatchObject({
      channel: 'messenger',
      contactId: psid,
      messageKey: `mid:m_${psid}_a`,
      contact: { lastInteraction: new Date(sentAt).toISOString() },
    });
    expect(record.decision).toBe('pass');
    expect(record.committed.map((a) => [a.kind, a.args])).toEqual([
      ['send_content', { text: 'You said: hello there', lastInboundAt: new Date(sentAt).toISOString() }],
    ]);
    const entry = await outboxEntry(t.tenantId, turnId!);
    expect(entry).toMatchObject({ channel: 'messenger', contactId: psid, sequence: { at: sentAt } });
    expect((await deliverMessenger(t, turnId!)).outcome).toBe('done');
    expect((await deliverMessenger(t, turnId!)).outcome).toBe('done');
    const sent = await sentTo(psid);
    expect(sent.map((m) => [m.status, m.body.messaging_type, textOf(m)])).toEqual([
      [200, 'RESPONSE', 'You said: hello there'],
    ]);
  });

  it('a tenant that wants it shows typing_on while the turn runs (directly, before the reply); others do not', async () => {
    const t = await seedMessengerTenant({ messenger: { typingIndicator: true } });
    const quiet = await seedMessengerTenant();
    const [psid, other] = [await newPsid(t), await newPsid(quiet)];
    const app = appWith(echoModel());
    await postMessenger(app, t, webhookBody(t, [textItem(t, psid, `m_${psid}_t`, 'hi', Date.now())]));
    await postMessenger(app, quiet, webhookBody(quiet, [textItem(quiet, other, `m_${other}_t`, 'hi', Date.now())]));
    await app.settle();
    for (const tenant of [t, quiet]) await deliverMessenger(tenant, (await turnIds(tenant.tenantId))[0]!);
    expect((await sentTo(psid)).map((m) => m.body.sender_action ?? textOf(m))).toEqual(['typing_on', 'You said: hi']);
    expect((await sentTo(other)).map((m) => m.body.sender_action ?? textOf(m))).toEqual(['You said: hi']);
  });

  it('a contact over its rate limit gets the polite reply through the outbox, no turn, once per mid', async () => {
    const t = await seedMessengerTenant({ guardrails: { rateLimit: { contactPerMinute: 1 } } });
    const psid = await newPsid(t);
    const model = echoModel();
    const app = appWith(model);
    const now = Date.now();
    await postMessenger(app, t, webhookBody(t, [textItem(t, psid, `m_${psid}_r1`, 'one', now)]));
    await app.settle();
    const second = webhookBody(t, [textItem(t, psid, `m_${psid}_r2`, 'two', now + 1)]);
    await postMessenger(app, t, second);
    await postMessenger(app, t, second);
    await app.settle();
    expect(await turnIds(t.tenantId)).toHaveLength(1);
    expect(model.doGenerateCalls).toHaveLength(1);
    const keys = (await session().one((r) => r.keys(`t:${t.tenantId}:outbox:rl_*`))) as string[];
    expect(keys).toHaveLength(1);
    const entryId = keys[0]!.split(':outbox:')[1]!;
    expect((await outboxEntry(t.tenantId, entryId))?.actions.map((a) => [a.tool, a.args.text])).toEqual([
      ['system:rate-limit', expect.stringContaining('faster than I can answer')],
    ]);
  });

  it('echoes, deliveries and reads are ignored: no turn', async () => {
    const t = await seedMessengerTenant();
    const psid = await newPsid(t);
    const app = appWith(echoModel());
    const now = Date.now();
    const res = await postMessenger(
      app,
      t,
      webhookBody(t, [
        {
          sender: { id: t.pageId },
          recipient: { id: psid },
          timestamp: now,
          message: { mid: 'm_echo', text: 'our own reply', is_echo: true, app_id: 1 },
        },
        {
          sender: { id: psid },
          recipient: { id: t.pageId },
          timestamp: now,
          delivery: { mids: ['m_echo'], watermark: now },
        },
        { sender: { id: psid }, recipient: { id: t.pageId }, timestamp: now, read: { watermark: now } },
      ]),
    );
    expect(await res.json()).toEqual({ received: { messages: 0, presses: 0, ignored: 3 } });
    await app.settle();
    expect(await turnIds(t.tenantId)).toEqual([]);
  });

  it('the same mid delivered five times (Facebook retries) → one turn, one reply', async () => {
    const t = await seedMessengerTenant();
    const psid = await newPsid(t);
    const model = echoModel();
    const app = appWith(model);
    const body = webhookBody(t, [textItem(t, psid, `m_${psid}_dup`, 'are you open today?', Date.now())]);
    // Two concurrently, then three retries one after another.
    const first = await Promise.all([postMessenger(app, t, body), postMessenger(app, t, body)]);
    for (let i = 0; i < 3; i++) first.push(await postMessenger(app, t, body));
    expect(first.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    await app.settle();
    const turns = await turnIds(t.tenantId);
    expect(turns).toHaveLength(1);
    expect(model.doGenerateCalls).toHaveLength(1);
    await deliverMessenger(t, turns[0]!);
    expect((await sentTo(psid)).map(textOf)).toEqual(['You said: are you open today?']);
  });

  it('attachments are described to the model as type and URL, never fetched', async () => {
    const t = await seedMessengerTenant();
    const psid = await newPsid(t);
    const model = scriptedModel([{ reply: reply('Nice photo!') }]);
    const app = appWith(model);
    const item = {
      sender: { id: psid },
      recipient: { id: t.pageId },
      timestamp: Date.now(),
      message: {
        mid: `m_${psid}_att`,
        attachments: [
          { type: 'image', payload: { url: 'https://cdn.example.test/p.jpg' } },
          { type: 'location', payload: {} },
        ],
      },
    };
    expect((await postMessenger(app, t, webhookBody(t, [item]))).status).toBe(200);
    await app.settle();
    const prompt = JSON.stringify(model.doGenerateCalls[0]?.prompt);
    expect(prompt).toContain('contact attachment (not opened)');
    expect(prompt).toContain('image https://cdn.example.test/p.jpg');
    expect(prompt).toContain('location');
    const record = await turnRecord(t.tenantId, (await turnIds(t.tenantId))[0]!);
    expect(record.inbound.attachments).toEqual([
      { type: 'image', url: 'https://cdn.example.test/p.jpg' },
      { type: 'location' },
    ]);
  });
});

describe('a Messenger turn is never offered a write Messenger cannot perform', () => {
  it('flows, tags and fields are not offered (so not staged, promised or committed); the record says why', async () => {
    const t = await seedMessengerTenant();
    const psid = await newPsid(t);
    // A model that tries anyway: the call names a tool this turn does not have.
    const model = scriptedModel([
      { calls: [{ tool: 'send_media', input: { flow: 'brochure' } }], reply: reply('Sending the brochure now.') },
      { reply: reply('I cannot send brochures here, sorry.') },
    ]);
    const app = appWith(model);
    await postMessenger(app, t, webhookBody(t, [textItem(t, psid, `m_${psid}_f`, 'send me the brochure', Date.now())]));
    await app.settle();
    const offered = (model.doGenerateCalls[0]?.tools ?? []).map((tool) => tool.name).sort();
    expect(offered).toEqual(['lookup_contact', 'reply', 'search_faq']);
    const record = await turnRecord(t.tenantId, (await turnIds(t.tenantId))[0]!);
    expect(record.staged).toEqual([]);
    expect(record.committed.map((a) => a.kind)).toEqual(['send_content']);
    expect(record.notes).toEqual(
      expect.arrayContaining([
        expect.stringContaining('tool "send_media" stages send_flow, which channel messenger cannot perform'),
      ]),
    );
    // The same tenant on ManyChat is offered them.
    const manychat = scriptedModel([{ reply: reply('Hi!') }]);
    await appWith(manychat).post(t.tenantId, `secret-${t.tenantId}`, {
      contact: { id: '77' },
      text: 'hi',
      message_key: `k-${psid}`,
    });
    expect((manychat.doGenerateCalls[0]?.tools ?? []).map((tool) => tool.name)).toEqual(
      expect.arrayContaining(['send_media', 'tag_contact', 'record_choice']),
    );
  });
});

describe('confirmation buttons on Messenger: signed quick replies, answered by postback or quick reply', () => {
  /**
   * The buttons are channel-generic: here the pending row comes from a ManyChat turn of the same
   * contact id, and its buttons are rendered in Messenger's form by the product's own renderer. A
   * confirmation born on Messenger itself (a confirm-once send_content tool, the buttons taken from
   * what the Send API sandbox received) is in messenger-confirm.test.ts.
   */
  async function confirmTurn() {
    const t = await seedMessengerTenant();
    const psid = await newPsid(t);
    const app = appWith(
      scriptedModel([
        {
          calls: [{ tool: 'record_choice', input: { field: 'preferred_class', value: 'pilates' } }],
          reply: reply('Shall I note pilates as your preferred class?'),
        },
      ]),
    );
    const res = await app.post(t.tenantId, `secret-${t.tenantId}`, {
      contact: { id: psid },
      text: 'I prefer pilates',
      message_key: `k-${psid}-c`,
    });
    expect(res.status).toBe(200);
    await app.settle();
    const turnId = (await turnIds(t.tenantId))[0]!;
    const record = await turnRecord(t.tenantId, turnId);
    const secret = workerEnv.SESSION_SECRET;
    if (!secret) throw new Error('the workers test env has no SESSION_SECRET');
    const quickReplies = await messengerQuickReplies(record.reply, secret, t.tenantId, psid);
    return { t, psid, app, record, quickReplies };
  }
  const press = (
    t: { pageId: string },
    psid: string,
    payload: string,
    mid: string,
    as: 'postback' | 'quick_reply' = 'postback',
  ) =>
    as === 'postback'
      ? {
          sender: { id: psid },
          recipient: { id: t.pageId },
          timestamp: Date.now(),
          postback: { mid, title: 'Yes', payload },
        }
      : {
          sender: { id: psid },
          recipient: { id: t.pageId },
          timestamp: Date.now(),
          message: { mid, text: 'Yes', quick_reply: { payload } },
        };

  it("a confirmation in Messenger's form: Yes/No quick replies whose payloads are signed and bound to the pinned row", async () => {
    const { record, quickReplies } = await confirmTurn();
    expect(record.pendingConfirmation).toMatch(/^cf_/);
    expect(quickReplies.map((q) => [q.content_type, q.title])).toEqual([
      ['text', 'Yes'],
      ['text', 'No'],
    ]);
    expect(JSON.parse(quickReplies[0]!.payload)).toMatchObject({
      kind: 'confirm',
      pendingId: record.pendingConfirmation,
      answer: 'yes',
      sig: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
  });

  it('a Yes postback commits the pinned action once, however often Meta delivers it; the contact is told once', async () => {
    const { t, psid, app, record, quickReplies } = await confirmTurn();
    const yes = webhookBody(t, [press(t, psid, quickReplies[0]!.payload, `m_${psid}_yes`)]);
    const answers = await Promise.all([1, 2, 3, 4, 5].map(() => postMessenger(app, t, yes)));
    expect(answers.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    // A second, distinct press (a quick-reply message this time) changes nothing more.
    await postMessenger(
      app,
      t,
      webhookBody(t, [press(t, psid, quickReplies[0]!.payload, `m_${psid}_yes2`, 'quick_reply')]),
    );
    await app.settle();
    const pendingId = record.pendingConfirmation!;
    expect((await loadPinned(session(), t.tenantId, pendingId))?.status).toBe('confirmed');
    const entry = await outboxEntry(t.tenantId, pendingId);
    expect(entry?.actions.map((a) => [a.kind, a.args])).toEqual([
      ['set_field', { field: 'preferred_class', value: 'pilates' }],
    ]);
    const notice = await outboxEntry(t.tenantId, `${pendingId}.answer`);
    expect(notice?.actions.map((a) => a.args.text)).toEqual([expect.stringMatching(/^Confirmed: /)]);
    await deliverMessenger(t, `${pendingId}.answer`);
    expect((await sentTo(psid)).map(textOf).filter((x) => x?.startsWith('Confirmed'))).toHaveLength(1);
    // No model call for a press, and no second turn.
    expect(await turnIds(t.tenantId)).toEqual([record.turnId]);
  });

  it('a forged press does nothing: edited answer, another contact, a made-up signature', async () => {
    const { t, psid, app, record, quickReplies } = await confirmTurn();
    const genuineNo = JSON.parse(quickReplies[1]!.payload) as Record<string, unknown>;
    const other = await newPsid(t);
    const forged = [
      press(t, psid, JSON.stringify({ ...genuineNo, answer: 'yes' }), `m_${psid}_f1`),
      press(t, other, quickReplies[0]!.payload, `m_${other}_f2`),
      press(
        t,
        psid,
        JSON.stringify({ ...genuineNo, answer: 'yes', sig: 'ab'.repeat(32) }),
        `m_${psid}_f3`,
        'quick_reply',
      ),
    ];
    const res = await postMessenger(app, t, webhookBody(t, forged));
    expect(res.status).toBe(200);
    await app.settle();
    const pendingId = record.pendingConfirmation!;
    expect((await loadPinned(session(), t.tenantId, pendingId))?.status).toBe('pending');
    expect(await outboxEntry(t.tenantId, pendingId)).toBeNull();
    expect(await outboxEntry(t.tenantId, `${pendingId}.answer`)).toBeNull();
    expect(await turnIds(t.tenantId)).toEqual([record.turnId]);
  });
});
