import { createExecutionContext, waitOnExecutionContext } from 'cloudflare:test';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ManyChatChannel } from '../../core/manychat-channels.js';
import { signTerms } from '../../core/pinned-terms.js';
import type { StagedAction } from '../../core/staged-action.js';
import type { OutboxPublisher } from '../../outbox/publisher.js';
import { expireDueApprovals } from '../../src/approvals/decide-approval.js';
import { createApp } from '../../src/app.js';
import { demoTenantConfig } from '../../dev/demo-tenant.js';
import { savePinned } from '../support/pinned-fixtures.js';
import { signQStashDelivery } from '../support/qstash-signature.js';
import { dynamicBlockSchema, sendContentBodySchema } from '../support/manychat-channel-schemas.js';
import { reply, scriptedModel } from '../support/scripted-model.js';
import { newContact, sandboxCallsFor, seedTenant, session, workerEnv } from '../support/workers-env.js';
import { tenantApi } from './tenant-api.js';
import { appWith, outboxEntry, turnRecord } from './turn-helpers.js';

/**
 * Pinned work remembers the contact's ManyChat channel: the answer to a Yes, the prepared message a
 * Yes or an approval sends, a rejection and an expiry notice all reach the contact in the shape their
 * channel accepts. The sandbox refuses a sendContent without `content.type` for an Instagram,
 * WhatsApp or Telegram contact, as ManyChat does, so a message in the Facebook format is a dead letter.
 */
const OFFER = 'Your first class is free: book it on the timetable.';
const CHANNELS = ['instagram', 'whatsapp', 'telegram'] as const;
const noPublish: OutboxPublisher = { publish: async () => {} };

/** The demo tenant with one prepared message, sent by a tool the contact confirms or the team approves. */
async function channelTenant(gate: 'confirm' | 'approval' | 'none' = 'confirm') {
  const demo = demoTenantConfig();
  return seedTenant({
    contents: [{ name: 'offer', description: 'the first-class offer', text: OFFER, keywords: ['offer'] }],
    tools: [
      ...(demo.tools ?? []),
      { name: 'send_offer', kind: 'send_content', description: 'Send the first-class offer.' },
    ],
    manifest: {
      ...demo.manifest,
      send_offer:
        gate === 'approval'
          ? { effect: 'write', approval: 'pinned' }
          : { effect: 'write', confirm: gate === 'confirm' ? 'once' : 'never' },
    },
  });
}

/** A ManyChat body as the walkthrough's template sends it on the contact's channel. */
function bodyOn(channel: ManyChatChannel, contactId: string, text: string) {
  return { channel, contact: { id: contactId, first_name: 'Grace', last_input_text: text } };
}

async function deliver(tenantId: string, entryId: string) {
  const body = JSON.stringify({ tenantId, turnId: entryId });
  const url = `${workerEnv.PUBLIC_URL!.replace(/\/$/, '')}/v1/outbox/deliver`;
  const ctx = createExecutionContext();
  const res = await createApp().fetch(
    new Request(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'Upstash-Signature': await signQStashDelivery({ key: workerEnv.QSTASH_CURRENT_SIGNING_KEY!, url, body }),
      },
      body,
    }),
    workerEnv,
    ctx,
  );
  await waitOnExecutionContext(ctx);
  return (await res.json()) as { outcome: string; actions: { kind: string; state: string; detail?: string }[] };
}

/** The sendContent calls the sandbox answered for the contact: each valid for its channel, by the schema from the docs. */
async function sentContents(contactId: string, channel: ManyChatChannel) {
  const calls = (await sandboxCallsFor(contactId)).filter((c) => c.path.endsWith('/sendContent'));
  for (const c of calls) {
    const parsed = sendContentBodySchema(channel).safeParse(c.body);
    expect(parsed.success, `${channel} sendContent: ${parsed.error?.message}`).toBe(true);
  }
  return calls;
}

async function stage(
  channel: ManyChatChannel,
  tool: string,
  input: Record<string, unknown>,
  text: string,
  gate: 'confirm' | 'approval' | 'none' = 'confirm',
) {
  const tenant = await channelTenant(gate);
  const contactId = await newContact({ channel });
  const app = appWith(scriptedModel([{ calls: [{ tool, input }], reply: reply('I will check that for you.') }]));
  const res = await app.post(tenant.tenantId, tenant.secret, bodyOn(channel, contactId, text));
  expect(res.status).toBe(200);
  const block = (await res.json()) as Record<string, unknown>;
  const record = await turnRecord(tenant.tenantId, res.headers.get('x-turn-id')!);
  return { ...tenant, contactId, app, block, record };
}

afterEach(() => vi.restoreAllMocks());

describe.each(CHANNELS)("pinned work on %s is answered in the channel's shape", (channel) => {
  it('a Yes is answered with content.type, and the prepared message it sends is delivered with it', async () => {
    const { tenantId, contactId, app, block, record } = await stage(
      channel,
      'send_offer',
      { content: 'offer' },
      'can you send me the offer?',
    );
    expect(record.pendingConfirmation).toMatch(/^cf_/);
    expect(dynamicBlockSchema(channel).safeParse(block).success).toBe(true);
    const content = (block as { content: Record<string, unknown> }).content;
    const buttons = (
      (content.quick_replies ?? (content.messages as { buttons?: unknown[] }[]).at(-1)?.buttons) as {
        payload: unknown;
      }[]
    ).map((b) => b.payload);
    // The row remembers its channel: a press whose unsigned channel word is gone is still answered in it.
    const { channel: pressed, ...bare } = buttons[0] as Record<string, unknown>;
    expect(pressed).toBe(channel);
    const yes = await app.post(tenantId, null, bare);
    expect(yes.headers.get('x-confirmation-outcome')).toBe('confirmed');
    const answer = await yes.json();
    expect(dynamicBlockSchema(channel).safeParse(answer).success, JSON.stringify(answer)).toBe(true);

    const delivered = await deliver(tenantId, record.pendingConfirmation!);
    expect(delivered.actions.map((a) => [a.kind, a.state, a.detail])).toEqual([['send_content', 'done', undefined]]);
    const sent = await sentContents(contactId, channel);
    expect(sent.map((c) => [c.status, (c.body.data as { content: { type?: string } }).content.type])).toEqual([
      [200, channel],
    ]);
  });

  it("a prepared message a turn commits at once goes out in the channel's shape", async () => {
    const { tenantId, contactId, record } = await stage(
      channel,
      'send_offer',
      { content: 'offer' },
      'can you send me the offer?',
      'none',
    );
    expect(record.committed.map((a) => a.kind)).toEqual(['send_content']);
    const delivered = await deliver(tenantId, record.turnId);
    expect(delivered.actions.map((a) => [a.state, a.detail])).toEqual([['done', undefined]]);
    expect((await sentContents(contactId, channel)).map((c) => c.status)).toEqual([200]);
  });

  it("an approved prepared message goes out in the channel's shape", async () => {
    const { tenantId, adminSecret, contactId, record } = await stage(
      channel,
      'send_offer',
      { content: 'offer' },
      'please send me the offer',
      'approval',
    );
    const approvalId = record.approvals[0]!;
    expect((await tenantApi(tenantId, adminSecret, 'POST', `/approvals/${approvalId}/approve`)).status).toBe(200);
    const delivered = await deliver(tenantId, approvalId);
    expect(delivered.actions.map((a) => [a.state, a.detail])).toEqual([['done', undefined]]);
    expect((await sentContents(contactId, channel)).map((c) => c.status)).toEqual([200]);
  });

  it("a rejection's notice and an expiry's notice go out in the channel's shape", async () => {
    const rejected = await stage(channel, 'untag_contact', { tag: 'interested' }, 'please remove my interested tag');
    const rejectId = rejected.record.approvals[0]!;
    expect(
      (await tenantApi(rejected.tenantId, rejected.adminSecret, 'POST', `/approvals/${rejectId}/reject`)).status,
    ).toBe(200);
    const notice = await deliver(rejected.tenantId, `${rejectId}.notice`);
    expect(notice.actions.map((a) => [a.state, a.detail])).toEqual([['done', undefined]]);
    expect((await sentContents(rejected.contactId, channel)).map((c) => c.status)).toEqual([200]);

    const expiring = await stage(channel, 'untag_contact', { tag: 'interested' }, 'please remove my interested tag');
    const expireId = expiring.record.approvals[0]!;
    const later = new Date(Date.now() + 3600_000 + 60_000);
    const expired = await expireDueApprovals(
      { session: session(), publisher: noPublish, pinSecret: workerEnv.SESSION_SECRET!, now: later },
      expiring.tenantId,
    );
    expect(expired).toBe(1);
    const expiry = await deliver(expiring.tenantId, `${expireId}.notice`);
    expect(expiry.actions.map((a) => [a.state, a.detail])).toEqual([['done', undefined]]);
    expect((await sentContents(expiring.contactId, channel)).map((c) => c.status)).toEqual([200]);
  });
});

describe('a pinned row written before rows remembered the channel', () => {
  it('still verifies, is answered in the Facebook format, and the fallback is logged', async () => {
    const { tenantId, adminSecret } = await channelTenant();
    const contactId = await newContact();
    const now = new Date();
    const action: StagedAction = {
      id: 'a_old',
      tool: 'untag_contact',
      kind: 'remove_tag',
      args: { tag: 'interested' },
      effect: 'destructive',
      idempotent: true,
      gate: 'approval',
      summary: 'remove tag "interested"',
    };
    // Exactly the fields an older row carried: no surface, no last-interaction time.
    const old = await signTerms(
      {
        id: `ap_${crypto.randomUUID().replace(/-/g, '')}`,
        kind: 'approval',
        tenantId,
        contactId,
        channel: 'manychat',
        turnId: `turn_old${contactId}`,
        actions: [action],
        card: 'remove tag "interested"',
        nonce: 'n',
        createdAt: now.toISOString(),
        expiresAt: new Date(now.getTime() + 3600_000).toISOString(),
      },
      workerEnv.SESSION_SECRET!,
    );
    await savePinned([old]);
    const warn = vi.spyOn(console, 'warn');
    expect((await tenantApi(tenantId, adminSecret, 'POST', `/approvals/${old.id}/reject`)).status).toBe(200);
    expect(warn.mock.calls.flat().join('\n')).toContain(`pinned row ${old.id}`);
    const entry = await outboxEntry(tenantId, `${old.id}.notice`);
    expect(entry?.surface).toBeUndefined();
    const notice = await deliver(tenantId, `${old.id}.notice`);
    expect(notice.actions.map((a) => a.state)).toEqual(['done']);
    expect((await sentContents(contactId, 'facebook')).map((c) => c.status)).toEqual([200]);
  });
});

describe("WhatsApp's 24-hour session holds for pinned work too", () => {
  it('a rejection notice for a contact whose last message is past the session is a dead letter with the reason, not sent', async () => {
    const tenant = await channelTenant();
    const contactId = await newContact({ channel: 'whatsapp' });
    const app = appWith(
      scriptedModel([{ calls: [{ tool: 'untag_contact', input: { tag: 'interested' } }], reply: reply('Checking.') }]),
    );
    const lastAt = new Date(Date.now() - 25 * 3600_000).toISOString();
    const res = await app.post(tenant.tenantId, tenant.secret, {
      channel: 'whatsapp',
      contact: { id: contactId, last_interaction: lastAt, last_input_text: 'please remove my interested tag' },
    });
    const record = await turnRecord(tenant.tenantId, res.headers.get('x-turn-id')!);
    const id = record.approvals[0]!;
    expect((await tenantApi(tenant.tenantId, tenant.adminSecret, 'POST', `/approvals/${id}/reject`)).status).toBe(200);
    const notice = await deliver(tenant.tenantId, `${id}.notice`);
    expect(notice.actions.map((a) => a.state)).toEqual(['dead']);
    expect(notice.actions[0]!.detail).toContain("outside WhatsApp's 24-hour session");
    expect(await sentContents(contactId, 'whatsapp')).toEqual([]);
  });
});
