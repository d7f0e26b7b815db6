import { describe, expect, it } from 'vitest';
import { FINISH_TURN_PATH, type FinishTurnJob } from '../../core/finish-turn-job.js';
import type { InboundMessage } from '../../core/inbound-message.js';
import { INBOUND_RETRY_PATH } from '../../core/inbound-retry-job.js';
import { deliveryKeyDigest, tenantKeys } from '../../core/storage/keys.js';
import { DELIVERY_PATH } from '../../outbox/publisher.js';
import { loadPinned } from '../../src/approvals/pinned-store.js';
import { messengerQuickReplies } from '../../src/channels/messenger/quick-replies.js';
import { setTenantStatus } from '../../src/tenants/provisioning.js';
import { claimDelivery } from '../../src/turn/claim-delivery.js';
import { signQStashDelivery } from '../support/qstash-signature.js';
import { reply, scriptedModel } from '../support/scripted-model.js';
import { newContact, sandboxCallsFor, seedTenant, session, workerEnv } from '../support/workers-env.js';
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
import { appWith, outboxEntry, turnRecord, type AppUnderTest } from './turn-helpers.js';
import { tenantApi } from './tenant-api.js';

/**
 * A suspended tenant (issue 13): beyond its webhooks, no other way in — the finish-turn job, an
 * inbound retry, a confirmation button — calls the model or stages or commits anything. Each
 * answers 200 (QStash must not retry for ever) with a body saying so, and gives back any claim it
 * held, so the same delivery runs once the tenant is resumed. What was committed before still
 * drains.
 */

const SUSPENDED_REPLY = 'We are closed for now.';
const brochure = () =>
  scriptedModel([
    { calls: [{ tool: 'send_media', input: { flow: 'brochure' } }], reply: reply('Here comes the brochure.') },
  ]);

async function signed(app: AppUnderTest, path: string, payload: unknown): Promise<Response> {
  const body = JSON.stringify(payload);
  const url = `${workerEnv.PUBLIC_URL!.replace(/\/$/, '')}${path}`;
  const signature = await signQStashDelivery({ key: workerEnv.QSTASH_CURRENT_SIGNING_KEY!, url, body });
  return app.fetch(
    new Request(`http://worker.test${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'upstash-signature': signature },
      body,
    }),
  );
}

function inboundOf(tenantId: string, contactId: string, messageKey: string, text: string): InboundMessage {
  return {
    tenantId,
    channel: 'manychat',
    contactId,
    messageKey,
    text,
    contact: { fields: {} },
    receivedAt: new Date().toISOString(),
  };
}

/** What Redis holds of a delivery's claim: its owner, whether it is listed as open, and its kept job. */
async function claimState(tenantId: string, contactId: string, messageKey: string, turnId: string) {
  const keys = tenantKeys(tenantId);
  const claimKey = keys.claim(await deliveryKeyDigest(contactId, messageKey));
  const [owner, openScore, job] = await session().pipeline((p) => {
    p.get(claimKey);
    p.zscore(keys.openClaims, turnId);
    p.get(keys.claimJob(turnId));
  });
  return { owner: owner ?? null, open: openScore != null, job: job != null };
}

describe('a suspended tenant: the finish-turn job', () => {
  it('runs no model for a turn whose Worker died, answers 200 "suspended", and gives the claim back; resumed, the same delivery runs', async () => {
    const { tenantId, secret } = await seedTenant({ suspendedReply: SUSPENDED_REPLY });
    const contactId = await newContact();
    const turnId = `turn_${crypto.randomUUID().replaceAll('-', '')}`;
    const inbound = inboundOf(tenantId, contactId, 'k:died', 'brochure please');
    // The webhook's Worker claimed the delivery (listing it for the sweeper) and died before the commit.
    const claim = await claimDelivery(session(), tenantId, inbound.messageKey, contactId, turnId, {
      job: { turnId, inbound },
      dueAt: Date.now(),
    });
    expect(claim.claimed).toBe(true);
    expect(await claimState(tenantId, contactId, inbound.messageKey, turnId)).toEqual({
      owner: turnId,
      open: true,
      job: true,
    });

    await setTenantStatus(session(), tenantId, 'suspended');
    const model = brochure();
    const app = appWith(model);
    const res = await signed(app, FINISH_TURN_PATH, { turnId, inbound } satisfies FinishTurnJob);
    expect(res.status).toBe(200);
    expect(res.headers.get('x-tenant-suspended')).toBe('1');
    expect(await res.json()).toEqual({ outcome: 'suspended', tenantId, turnId, released: true });
    expect(model.doGenerateCalls).toHaveLength(0);
    expect(await turnIds(tenantId)).toEqual([]);
    expect(await outboxEntry(tenantId, turnId)).toBeNull();
    // No claim left to hold a retried delivery, nothing for the sweeper to publish again.
    expect(await claimState(tenantId, contactId, inbound.messageKey, turnId)).toEqual({
      owner: null,
      open: false,
      job: false,
    });

    // A second copy of the job (QStash, or the sweep) changes nothing more.
    expect(await (await signed(app, FINISH_TURN_PATH, { turnId, inbound })).json()).toMatchObject({
      outcome: 'suspended',
      released: false,
    });

    await setTenantStatus(session(), tenantId, 'active');
    const retried = await app.post(tenantId, secret, {
      contact: { id: contactId },
      text: 'brochure please',
      message_key: 'died',
    });
    expect(retried.status).toBe(200);
    expect(retried.headers.get('x-duplicate-of')).toBeNull();
    expect(model.doGenerateCalls).toHaveLength(1);
    expect((await turnRecord(tenantId, retried.headers.get('x-turn-id')!)).decision).toBe('pass');
  });

  it('leaves a turn that committed alone: "already-done", its claim kept, so a retry after resume still joins it', async () => {
    const { tenantId, secret } = await seedTenant();
    const contactId = await newContact();
    const app = appWith(brochure());
    const first = await app.post(tenantId, secret, {
      contact: { id: contactId },
      text: 'brochure please',
      message_key: 'done',
    });
    const turnId = first.headers.get('x-turn-id')!;
    const record = await turnRecord(tenantId, turnId);

    await setTenantStatus(session(), tenantId, 'suspended');
    const res = await signed(app, FINISH_TURN_PATH, { turnId, inbound: record.inbound });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ outcome: 'already-done', turnId });
    expect((await claimState(tenantId, contactId, record.inbound.messageKey, turnId)).owner).toBe(turnId);

    await setTenantStatus(session(), tenantId, 'active');
    const retried = await app.post(tenantId, secret, {
      contact: { id: contactId },
      text: 'brochure please',
      message_key: 'done',
    });
    expect(retried.headers.get('x-duplicate-of')).toBe(turnId);
  });
});

describe('a suspended tenant: an inbound retry (a message kept through a Redis outage)', () => {
  it('runs no model, claims nothing, answers 200 "suspended"; resumed, the same retry runs once', async () => {
    const { tenantId } = await seedTenant();
    const contactId = await newContact();
    const inbound = inboundOf(tenantId, contactId, 'k:kept', 'brochure please');
    await setTenantStatus(session(), tenantId, 'suspended');
    const model = brochure();
    const app = appWith(model);
    const res = await signed(app, INBOUND_RETRY_PATH, { inbound });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-tenant-suspended')).toBe('1');
    expect(await res.json()).toEqual({ outcome: 'suspended', tenantId });
    expect(model.doGenerateCalls).toHaveLength(0);
    expect(await turnIds(tenantId)).toEqual([]);
    const claimKey = tenantKeys(tenantId).claim(await deliveryKeyDigest(contactId, inbound.messageKey));
    expect(await session().one((r) => r.get(claimKey))).toBeNull();
    expect(await session().one((r) => r.zcard(tenantKeys(tenantId).openClaims))).toBe(0);

    await setTenantStatus(session(), tenantId, 'active');
    const back = await signed(app, INBOUND_RETRY_PATH, { inbound });
    expect(await back.json()).toMatchObject({ outcome: 'finished', decision: 'pass' });
    expect(model.doGenerateCalls).toHaveLength(1);
  });
});

type Block = {
  content: { messages: { text: string }[]; quick_replies: { caption: string; payload: Record<string, unknown> }[] };
};

describe('a suspended tenant: confirmation buttons', () => {
  async function pendingConfirmation() {
    const tenant = await seedTenant({ suspendedReply: SUSPENDED_REPLY });
    const contactId = await newContact();
    const app = appWith(
      scriptedModel([
        {
          calls: [{ tool: 'record_choice', input: { field: 'preferred_class', value: 'pilates' } }],
          reply: reply('Shall I note pilates as your preferred class?'),
        },
      ]),
    );
    const res = await app.post(tenant.tenantId, tenant.secret, {
      contact: { id: contactId },
      text: 'I prefer pilates',
    });
    const block = (await res.json()) as Block;
    const record = await turnRecord(tenant.tenantId, res.headers.get('x-turn-id')!);
    expect(record.pendingConfirmation).toMatch(/^cf_/);
    return { ...tenant, app, yes: block.content.quick_replies[0]!.payload, pendingId: record.pendingConfirmation! };
  }

  it('ManyChat: a Yes pressed after the suspension commits nothing, though this isolate last read the tenant as active; resumed, it confirms', async () => {
    const { tenantId, app, yes, pendingId } = await pendingConfirmation();
    // Suspended by an operator elsewhere: the isolate's cached copy still says active.
    await setTenantStatus(session(), tenantId, 'suspended');
    const pressed = await app.post(tenantId, null, yes);
    expect(pressed.status).toBe(200);
    expect(pressed.headers.get('x-tenant-suspended')).toBe('1');
    expect(pressed.headers.get('x-confirmation-outcome')).toBeNull();
    expect(((await pressed.json()) as Block).content.messages[0]?.text).toBe(SUSPENDED_REPLY);
    expect(await outboxEntry(tenantId, pendingId)).toBeNull();
    expect((await loadPinned(session(), tenantId, pendingId))?.status).toBe('pending');

    await setTenantStatus(session(), tenantId, 'active');
    const again = await app.post(tenantId, null, yes);
    expect(again.headers.get('x-confirmation-outcome')).toBe('confirmed');
    expect((await outboxEntry(tenantId, pendingId))?.actions.map((a) => a.kind)).toEqual(['set_field']);
  });

  it('Messenger: a Yes postback while suspended is acknowledged and commits nothing', async () => {
    const t = await seedMessengerTenant({ suspendedReply: SUSPENDED_REPLY });
    const psid = await newPsid(t);
    const app = appWith(
      scriptedModel([
        {
          calls: [{ tool: 'record_choice', input: { field: 'preferred_class', value: 'pilates' } }],
          reply: reply('Shall I note pilates as your preferred class?'),
        },
      ]),
    );
    await app.post(t.tenantId, `secret-${t.tenantId}`, {
      contact: { id: psid },
      text: 'I prefer pilates',
      message_key: `k-${psid}`,
    });
    await app.settle();
    const record = await turnRecord(t.tenantId, (await turnIds(t.tenantId))[0]!);
    const pendingId = record.pendingConfirmation!;
    expect(pendingId).toMatch(/^cf_/);
    const [yes] = await messengerQuickReplies(record.reply, workerEnv.SESSION_SECRET!, t.tenantId, psid);

    await setTenantStatus(session(), t.tenantId, 'suspended');
    const res = await postMessenger(
      app,
      t,
      webhookBody(t, [
        {
          sender: { id: psid },
          recipient: { id: t.pageId },
          timestamp: Date.now(),
          postback: { mid: `m_${psid}_yes`, title: 'Yes', payload: yes!.payload },
        },
      ]),
    );
    await app.settle();
    expect(res.status).toBe(200);
    expect(res.headers.get('x-tenant-suspended')).toBe('1');
    expect(await res.json()).toEqual({ received: { messages: 0, presses: 1, ignored: 0 }, processed: false });
    expect((await loadPinned(session(), t.tenantId, pendingId))?.status).toBe('pending');
    expect(await outboxEntry(t.tenantId, pendingId)).toBeNull();
    expect(await outboxEntry(t.tenantId, `${pendingId}.answer`)).toBeNull();
  });
});

describe('a suspended tenant: Messenger messages', () => {
  it('each message gets the polite suspendedReply through the outbox, once per mid (Meta retries it); no turn, no model call', async () => {
    const t = await seedMessengerTenant({ suspendedReply: SUSPENDED_REPLY });
    const psid = await newPsid(t);
    const model = echoModel();
    const app = appWith(model);
    await setTenantStatus(session(), t.tenantId, 'suspended');
    const body = webhookBody(t, [textItem(t, psid, `m_${psid}_s1`, 'are you open?', Date.now())]);
    for (let i = 0; i < 3; i++) {
      const res = await postMessenger(app, t, body);
      expect(res.status).toBe(200);
      expect(res.headers.get('x-tenant-suspended')).toBe('1');
    }
    await app.settle();
    expect(model.doGenerateCalls).toHaveLength(0);
    expect(await turnIds(t.tenantId)).toEqual([]);
    const keys = (await session().one((r) => r.keys(`t:${t.tenantId}:outbox:sus_*`))) as string[];
    expect(keys).toHaveLength(1);
    const entryId = keys[0]!.split(':outbox:')[1]!;
    expect((await outboxEntry(t.tenantId, entryId))?.actions.map((a) => [a.tool, a.kind, a.args.text])).toEqual([
      ['system:suspended', 'send_content', SUSPENDED_REPLY],
    ]);
    expect((await deliverMessenger(t, entryId)).outcome).toBe('done');
    expect((await deliverMessenger(t, entryId)).outcome).toBe('done');
    expect((await sentTo(psid)).map(textOf)).toEqual([SUSPENDED_REPLY]);
  });
});

describe('a suspended tenant: approvals', () => {
  it('approving performs nothing new while suspended (409, the row still waits); resumed, the same approval performs once', async () => {
    const { tenantId, secret, adminSecret } = await seedTenant();
    const contactId = await newContact();
    const model = scriptedModel([
      {
        calls: [{ tool: 'untag_contact', input: { tag: 'interested' } }],
        reply: reply('A team member will review removing the tag.'),
      },
    ]);
    const res = await appWith(model).post(tenantId, secret, {
      contact: { id: contactId },
      text: 'please remove my interested tag',
    });
    const approvalId = (await turnRecord(tenantId, res.headers.get('x-turn-id')!)).approvals[0]!;
    expect(approvalId).toMatch(/^ap_/);

    await setTenantStatus(session(), tenantId, 'suspended');
    const refused = await tenantApi(tenantId, adminSecret, 'POST', `/approvals/${approvalId}/approve`);
    expect(refused.status).toBe(409);
    expect(((await refused.json()) as { error: string }).error).toContain('is suspended');
    expect((await loadPinned(session(), tenantId, approvalId))?.status).toBe('pending');
    expect(await outboxEntry(tenantId, approvalId)).toBeNull();

    await setTenantStatus(session(), tenantId, 'active');
    const approved = await tenantApi(tenantId, adminSecret, 'POST', `/approvals/${approvalId}/approve`);
    expect(approved.status).toBe(200);
    expect((await outboxEntry(tenantId, approvalId))?.actions.map((a) => a.kind)).toEqual(['remove_tag']);
  });
});

describe('a suspended tenant: its outbox still drains', () => {
  it('an entry committed before the suspension is delivered after it', async () => {
    const { tenantId, secret } = await seedTenant();
    const contactId = await newContact();
    const app = appWith(brochure());
    const res = await app.post(tenantId, secret, { contact: { id: contactId }, text: 'brochure please' });
    const turnId = res.headers.get('x-turn-id')!;
    expect((await outboxEntry(tenantId, turnId))?.actions.map((a) => a.kind)).toEqual(['send_flow']);

    await setTenantStatus(session(), tenantId, 'suspended');
    const delivered = await signed(app, DELIVERY_PATH, { tenantId, turnId });
    expect(delivered.status).toBe(200);
    expect(await delivered.json()).toMatchObject({ outcome: 'done', entryState: 'done' });
    expect(
      (await sandboxCallsFor(contactId)).filter((c) => c.path.endsWith('/sendFlow') && c.status === 200),
    ).toHaveLength(1);
  });
});
