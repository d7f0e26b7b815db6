import { describe, expect, it } from 'vitest';
import { loadPinned } from '../../src/approvals/pinned-store.js';
import { answerConfirmation } from '../../src/approvals/answer-confirmation.js';
import { demoTenantConfig } from '../../dev/demo-tenant.js';
import { reply, scriptedModel } from '../support/scripted-model.js';
import { session, testSecretKeys, workerEnv } from '../support/workers-env.js';
import { loadTenant } from '../../src/tenants/tenant-store.js';
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
  type MessengerTenant,
  type SentMessage,
} from './messenger-helpers.js';

/**
 * A confirmation born on Messenger, end to end and on Messenger only: the model stages a
 * confirm-once `send_content` (one of the tenant's own prepared messages), the reply goes out
 * through the outbox to the Send API sandbox with Yes/No quick replies, and the contact's press
 * comes back as a signed webhook. The payloads pressed are the ones the sandbox received.
 */
const PRICE_LIST = 'Drop-in class 15 EUR; ten-class card 120 EUR; monthly unlimited 89 EUR.';

async function messengerConfirmation() {
  const demo = demoTenantConfig();
  const t = await seedMessengerTenant({
    contents: [
      {
        name: 'price_list',
        description: 'the studio prices as a message',
        text: PRICE_LIST,
        keywords: ['prices', 'pricing'],
      },
    ],
    tools: [
      ...(demo.tools ?? []),
      {
        name: 'send_info',
        kind: 'send_content',
        description: "Send the contact one of the studio's prepared messages.",
      },
    ],
    manifest: { ...demo.manifest, send_info: { effect: 'write', confirm: 'once' } },
  });
  const psid = await newPsid(t);
  const model = scriptedModel([
    {
      calls: [{ tool: 'send_info', input: { content: 'price_list' } }],
      reply: reply('Shall I send you our price list?'),
    },
  ]);
  const app = appWith(model);
  const res = await postMessenger(
    app,
    t,
    webhookBody(t, [textItem(t, psid, `m_${psid}_ask`, 'what are your prices?', Date.now())]),
  );
  expect(res.status).toBe(200);
  await app.settle();
  const [turnId, ...more] = await turnIds(t.tenantId);
  expect(more).toEqual([]);
  const record = await turnRecord(t.tenantId, turnId!);
  // Offered on Messenger (it can perform it), staged, and held for the contact's Yes: not committed.
  expect((model.doGenerateCalls[0]?.tools ?? []).map((tool) => tool.name)).toContain('send_info');
  expect(record.decision).toBe('pass');
  expect(record.staged.map((a) => [a.tool, a.kind, a.gate, a.args])).toEqual([
    ['send_info', 'send_content', 'confirm', { content: 'price_list', text: PRICE_LIST }],
  ]);
  expect(record.committed.map((a) => a.tool)).toEqual(['system:deferred-reply']);
  const pendingId = record.pendingConfirmation;
  expect(pendingId).toMatch(/^cf_/);
  expect((await loadPinned(session(), t.tenantId, pendingId!))?.status).toBe('pending');
  // The reply goes through the outbox; what Meta got is where the buttons come from.
  expect((await deliverMessenger(t, turnId!)).outcome).toBe('done');
  const sent = await sentTo(psid);
  expect(sent).toHaveLength(1);
  expect(sent[0]!.body.messaging_type).toBe('RESPONSE');
  const quickReplies =
    (sent[0]!.body.message as { quick_replies?: { content_type: string; title: string; payload: string }[] })
      .quick_replies ?? [];
  expect(quickReplies.map((q) => [q.content_type, q.title])).toEqual([
    ['text', 'Yes'],
    ['text', 'No'],
  ]);
  const [yes, no] = quickReplies.map((q) => q.payload) as [string, string];
  // Nothing of the pinned content has reached the contact yet.
  expect(sent.map(textOf)).not.toContain(PRICE_LIST);
  return { t, psid, app, model, turnId: turnId!, pendingId: pendingId!, yes, no };
}

async function configOf(tenantId: string) {
  const loaded = await loadTenant(session(), tenantId, await testSecretKeys());
  if (!loaded.found || !('config' in loaded)) throw new Error(`tenant ${tenantId} not loadable`);
  return loaded.config;
}

const quickReplyPress = (t: MessengerTenant, psid: string, payload: string, mid: string, title = 'Yes') => ({
  sender: { id: psid },
  recipient: { id: t.pageId },
  timestamp: Date.now(),
  message: { mid, text: title, quick_reply: { payload } },
});
const postbackPress = (t: MessengerTenant, psid: string, payload: string, mid: string, title = 'Yes') => ({
  sender: { id: psid },
  recipient: { id: t.pageId },
  timestamp: Date.now(),
  postback: { mid, title, payload },
});

/** Delivers (twice: a QStash retry) whatever the press committed and noticed, then what the contact got. */
async function deliverAnswer(t: MessengerTenant, psid: string, pendingId: string): Promise<SentMessage[]> {
  for (const id of [pendingId, `${pendingId}.answer`]) {
    if (!(await outboxEntry(t.tenantId, id))) continue;
    expect((await deliverMessenger(t, id)).outcome).toBe('done');
    expect((await deliverMessenger(t, id)).outcome).toBe('done');
  }
  return sentTo(psid);
}

async function expectNothingCommitted(
  ctx: { t: MessengerTenant; psid: string; pendingId: string; turnId: string },
  status: string,
) {
  const { t, psid, pendingId, turnId } = ctx;
  expect((await loadPinned(session(), t.tenantId, pendingId))?.status).toBe(status);
  expect(await outboxEntry(t.tenantId, pendingId)).toBeNull();
  expect((await deliverAnswer(t, psid, pendingId)).map(textOf)).not.toContain(PRICE_LIST);
  expect(await turnIds(t.tenantId)).toEqual([turnId]);
}

describe('a confirmation born on Messenger: a confirm-once send_content, answered with the buttons Meta received', () => {
  it('Yes as a quick reply, delivered five times by Meta, commits the pinned send_content once; the content reaches the contact once', async () => {
    const { t, psid, app, model, turnId, pendingId, yes } = await messengerConfirmation();
    const press = webhookBody(t, [quickReplyPress(t, psid, yes, `m_${psid}_yes`)]);
    // Two at once, then three retries one after another.
    const answers = await Promise.all([postMessenger(app, t, press), postMessenger(app, t, press)]);
    for (let i = 0; i < 3; i++) answers.push(await postMessenger(app, t, press));
    expect(answers.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    await app.settle();
    expect((await loadPinned(session(), t.tenantId, pendingId))?.status).toBe('confirmed');
    const entry = await outboxEntry(t.tenantId, pendingId);
    expect(entry?.channel).toBe('messenger');
    expect(entry?.actions.map((a) => [a.tool, a.kind, a.args])).toEqual([
      ['send_info', 'send_content', { content: 'price_list', text: PRICE_LIST }],
    ]);
    const sent = await deliverAnswer(t, psid, pendingId);
    expect(sent.filter((m) => textOf(m) === PRICE_LIST)).toHaveLength(1);
    expect(sent.filter((m) => textOf(m)?.startsWith('Confirmed'))).toHaveLength(1);
    expect(sent.every((m) => m.status === 200)).toBe(true);
    // A press is no turn: no model call, no second turn record.
    expect(model.doGenerateCalls).toHaveLength(1);
    expect(await turnIds(t.tenantId)).toEqual([turnId]);
  });

  it('Yes as a postback commits it once too; a later quick-reply Yes (another mid) adds nothing', async () => {
    const { t, psid, app, turnId, pendingId, yes } = await messengerConfirmation();
    const press = webhookBody(t, [postbackPress(t, psid, yes, `m_${psid}_pb`)]);
    for (let i = 0; i < 5; i++) expect((await postMessenger(app, t, press)).status).toBe(200);
    await postMessenger(app, t, webhookBody(t, [quickReplyPress(t, psid, yes, `m_${psid}_qr`)]));
    await app.settle();
    expect((await loadPinned(session(), t.tenantId, pendingId))?.status).toBe('confirmed');
    const sent = await deliverAnswer(t, psid, pendingId);
    expect(sent.filter((m) => textOf(m) === PRICE_LIST)).toHaveLength(1);
    expect(await turnIds(t.tenantId)).toEqual([turnId]);
  });

  it('a forged or altered Yes commits nothing: No turned into Yes, a made-up signature, another contact, another row', async () => {
    const ctx = await messengerConfirmation();
    const { t, psid, app, yes, no } = ctx;
    const genuineNo = JSON.parse(no) as Record<string, unknown>;
    const genuineYes = JSON.parse(yes) as Record<string, unknown>;
    const other = await newPsid(t);
    const forged = [
      quickReplyPress(t, psid, JSON.stringify({ ...genuineNo, answer: 'yes' }), `m_${psid}_f1`),
      postbackPress(t, psid, JSON.stringify({ ...genuineYes, sig: 'ab'.repeat(32) }), `m_${psid}_f2`),
      quickReplyPress(t, other, yes, `m_${other}_f3`),
      postbackPress(t, psid, JSON.stringify({ ...genuineYes, pendingId: 'cf_someotherrow' }), `m_${psid}_f4`),
      quickReplyPress(
        t,
        psid,
        JSON.stringify({ ...genuineYes, nonce: `${String(genuineYes.nonce)}x` }),
        `m_${psid}_f5`,
      ),
    ];
    expect((await postMessenger(app, t, webhookBody(t, forged))).status).toBe(200);
    // The genuine Yes inside a body whose signature does not match: refused before anything is read.
    const unsigned = await postMessenger(app, t, webhookBody(t, [quickReplyPress(t, psid, yes, `m_${psid}_f6`)]), {
      signWith: 'not-the-app-secret',
    });
    expect(unsigned.status).toBe(401);
    await app.settle();
    await expectNothingCommitted(ctx, 'pending');
    // The other contact's "Yes" text turned into an ordinary message at most; never the price list.
    expect((await sentTo(other)).map(textOf)).not.toContain(PRICE_LIST);
  });

  it('No commits nothing (quick reply or postback), and a Yes after it changes nothing', async () => {
    const ctx = await messengerConfirmation();
    const { t, psid, app, yes, no, pendingId } = ctx;
    await postMessenger(app, t, webhookBody(t, [quickReplyPress(t, psid, no, `m_${psid}_no`, 'No')]));
    await postMessenger(app, t, webhookBody(t, [postbackPress(t, psid, no, `m_${psid}_no2`, 'No')]));
    await postMessenger(app, t, webhookBody(t, [quickReplyPress(t, psid, yes, `m_${psid}_late_yes`)]));
    await app.settle();
    await expectNothingCommitted(ctx, 'declined');
    // The contact is told once what became of it (the late Yes is not answered again).
    const told = (await sentTo(psid)).map(textOf).slice(1);
    expect(told).toEqual(['OK, nothing was changed.']);
    expect(await outboxEntry(t.tenantId, `${pendingId}.answer`)).not.toBeNull();
  });
  it('a Yes whose decision was stored but whose answer was not (storage failed between the two, Meta retries): the retry tells the contact once', async () => {
    const { t, psid, app, pendingId, yes } = await messengerConfirmation();
    const payload = JSON.parse(yes) as { pendingId: string; nonce: string };
    // The first try got as far as the decision (and its publish), then failed: no answer notice.
    const first = await answerConfirmation(
      {
        session: session(),
        publisher: { publish: async () => {} },
        pinSecret: workerEnv.SESSION_SECRET!,
        now: new Date(),
        config: await configOf(t.tenantId),
      },
      { tenantId: t.tenantId, contactId: psid, pendingId: payload.pendingId, answer: 'yes', nonce: payload.nonce },
    );
    expect(first.outcome).toBe('confirmed');
    expect(await outboxEntry(t.tenantId, `${pendingId}.answer`)).toBeNull();
    // Meta retries the press (twice): the contact is told what became of it, once.
    const press = webhookBody(t, [quickReplyPress(t, psid, yes, `m_${psid}_yes_retry`)]);
    expect((await postMessenger(app, t, press)).status).toBe(200);
    expect((await postMessenger(app, t, press)).status).toBe(200);
    await app.settle();
    const sent = await deliverAnswer(t, psid, pendingId);
    expect(sent.filter((m) => textOf(m) === PRICE_LIST)).toHaveLength(1);
    expect(sent.filter((m) => textOf(m)?.startsWith('Confirmed'))).toHaveLength(1);
  });
});
