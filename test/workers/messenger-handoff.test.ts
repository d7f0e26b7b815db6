import { describe, expect, it } from 'vitest';
import { PAGE_INBOX_APP_ID } from '../../core/tenant/tenant-config.js';
import { demoTenantConfig } from '../../dev/demo-tenant.js';
import { saveTenant } from '../../src/tenants/tenant-store.js';
import { reply, scriptedModel } from '../support/scripted-model.js';
import { session, uniqueId } from '../support/workers-env.js';
import { appWith, outboxEntry, turnRecord } from './turn-helpers.js';
import {
  deliverMessenger,
  newPsid,
  postMessenger,
  seedMessengerTenant,
  sentTo,
  textItem,
  textOf,
  turnIds,
  webhookBody,
} from './messenger-helpers.js';

/**
 * Issue 31, part 3: an escalation on Messenger reaches a person — the thread is handed to the
 * tenant's inbox app (Handover Protocol) and the tenant's notification channel hears of it — and the
 * bot stays silent for the contact until the handoff is released (which takes the thread back).
 */
const NOTIFY_URL = 'https://hooks.example.test/handoffs';

describe('an escalation on Messenger', () => {
  it('hands the thread to the Page Inbox, notifies the tenant (contact, reason, link to the turn), and the next message gets no bot reply until released', async () => {
    const t = await seedMessengerTenant({
      messenger: { handoverAppId: PAGE_INBOX_APP_ID },
      notifications: { approvals: { url: NOTIFY_URL, format: 'standard' } },
    });
    const psid = await newPsid(t);
    const app = appWith(
      scriptedModel([
        { reply: reply('A teammate will pick this up.', { escalate: true, reason: 'asks for a refund' }) },
        // Only reached after the release: the silenced message never calls the model.
        { reply: reply('Welcome back!') },
      ]),
    );
    expect(
      (await postMessenger(app, t, webhookBody(t, [textItem(t, psid, `m_${psid}_1`, 'I want a refund', Date.now())])))
        .status,
    ).toBe(200);
    await app.settle();
    const [first] = await turnIds(t.tenantId);
    const record = await turnRecord(t.tenantId, first!);
    expect(record.decision).toBe('escalate');
    const entry = await outboxEntry(t.tenantId, first!);
    expect(entry?.actions.map((a) => a.kind)).toEqual(['send_content', 'pass_thread_control', 'notify_webhook']);
    const notify = entry!.actions.find((a) => a.kind === 'notify_webhook')!;
    expect(notify.args).toMatchObject({ url: NOTIFY_URL, event: 'handoff.requested' });
    const event = JSON.parse(String(notify.args.body)) as Record<string, unknown>;
    expect(event).toMatchObject({
      type: 'handoff.requested',
      tenantId: t.tenantId,
      contactId: psid,
      channel: 'messenger',
      turnId: first,
    });
    expect(String(event.reason)).toContain('refund');
    expect(String(event.turn)).toMatch(new RegExp(`/dashboard/turns/${first}$`));

    // The outbox performs the handover against the Send API sandbox (the webhook has no client here).
    await deliverMessenger(t, first!);
    const calls = await sentTo(psid);
    expect(calls.map((c) => textOf(c) ?? c.body.target_app_id)).toEqual([
      'Thanks! A teammate will pick this up shortly.',
      PAGE_INBOX_APP_ID,
    ]);
    expect(calls.every((c) => c.status === 200)).toBe(true);

    // The contact writes again while with a person: no model call, nothing sent.
    expect(
      (await postMessenger(app, t, webhookBody(t, [textItem(t, psid, `m_${psid}_2`, 'hello?', Date.now())]))).status,
    ).toBe(200);
    await app.settle();
    const second = (await turnIds(t.tenantId)).find((id) => id !== first)!;
    expect((await turnRecord(t.tenantId, second)).decisionReason).toContain('contact is with a human until');
    expect(await outboxEntry(t.tenantId, second)).toBeNull();

    // The team releases the contact: the thread is taken back, and the bot answers again.
    const released = await app.fetch(
      new Request(`http://worker.test/v1/tenants/${t.tenantId}/contacts/${psid}/release`, {
        method: 'POST',
        headers: { authorization: `Bearer ${t.adminSecret}` },
      }),
    );
    expect(await released.json()).toEqual({
      tenantId: t.tenantId,
      contactId: psid,
      released: true,
      threadControl: 'taken',
    });
    expect((await sentTo(psid)).at(-1)?.body).toEqual({ recipient: { id: psid }, metadata: 'released by the tenant' });
    expect(
      (await postMessenger(app, t, webhookBody(t, [textItem(t, psid, `m_${psid}_3`, 'thanks', Date.now())]))).status,
    ).toBe(200);
    await app.settle();
    const third = (await turnIds(t.tenantId)).find((id) => id !== first && id !== second)!;
    expect((await turnRecord(t.tenantId, third)).decision).toBe('pass');
  });

  it("the inbox handing the thread back (pass_thread_control to our app) ends the bot's silence; a handover to another app does not", async () => {
    const APP_ID = '7700000000042';
    const t = await seedMessengerTenant({ messenger: { handoverAppId: PAGE_INBOX_APP_ID, appId: APP_ID } });
    const psid = await newPsid(t);
    const app = appWith(
      scriptedModel([
        { reply: reply('A teammate will pick this up.', { escalate: true, reason: 'asks for a person' }) },
        // Only reached once the thread is back: the silenced message never calls the model.
        { reply: reply('Back with the bot.') },
      ]),
    );
    const message = async (n: number, text: string) => {
      const res = await postMessenger(app, t, webhookBody(t, [textItem(t, psid, `m_${psid}_${n}`, text, Date.now())]));
      expect(res.status).toBe(200);
      await app.settle();
      const ids = await turnIds(t.tenantId);
      return turnRecord(t.tenantId, ids.at(-1)!);
    };
    const handover = (kind: 'pass_thread_control' | 'take_thread_control', newOwner: string) =>
      postMessenger(
        app,
        t,
        webhookBody(t, [
          {
            sender: { id: psid },
            recipient: { id: t.pageId },
            timestamp: Date.now(),
            [kind]: { previous_owner_app_id: PAGE_INBOX_APP_ID, new_owner_app_id: newOwner, metadata: 'done' },
          },
        ]),
      );
    expect((await message(1, 'I want a person')).decision).toBe('escalate');
    expect((await message(2, 'hello?')).decisionReason).toContain('contact is with a human until');

    // Handovers that do not give the thread to our app: ignored, still silent.
    const elsewhere = await handover('pass_thread_control', '5550000000001');
    expect(await elsewhere.json()).toEqual({ received: { messages: 0, presses: 0, ignored: 1 } });
    const takenAway = await handover('take_thread_control', '5550000000001');
    expect(await takenAway.json()).toEqual({ received: { messages: 0, presses: 0, ignored: 1 } });
    expect((await message(3, 'anyone?')).decisionReason).toContain('contact is with a human until');

    // The Page Inbox passes the thread back to our app: acknowledged, and the bot answers again.
    const back = await handover('pass_thread_control', APP_ID);
    expect(back.status).toBe(200);
    expect(await back.json()).toEqual({ received: { messages: 0, presses: 0, ignored: 0, handbacks: 1 } });
    expect(await session().one((r) => r.exists(`t:${t.tenantId}:handoff:${psid}`))).toBe(0);
    const answered = await message(4, 'thanks');
    expect(answered.decision).toBe('pass');
    expect(answered.reply.text).toBe('Back with the bot.');
  });

  it('a Messenger tenant whose escalation would reach nobody (no handover app, no notification) cannot save silenceMinutes > 0', async () => {
    const tenantId = uniqueId('m');
    const pageId = String(3_000_000_000 + Math.floor(Math.random() * 1e9));
    const base = { ...demoTenantConfig(tenantId), tenantId, messenger: { pages: [{ id: pageId }] } };
    const refused = await saveTenant(session(), base);
    expect(refused.ok).toBe(false);
    expect(refused.ok ? '' : refused.problems.join(' ')).toContain('would reach nobody');
    // Silence 0, a handover app, or a notification channel: each makes it saveable.
    expect((await saveTenant(session(), { ...base, handoff: { ...base.handoff!, silenceMinutes: 0 } })).ok).toBe(true);
    expect(
      (await saveTenant(session(), { ...base, messenger: { ...base.messenger, handoverAppId: PAGE_INBOX_APP_ID } })).ok,
    ).toBe(true);
    expect((await saveTenant(session(), { ...base, notifications: { approvals: { url: NOTIFY_URL } } })).ok).toBe(true);
  });
});
