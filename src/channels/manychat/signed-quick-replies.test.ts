import { describe, expect, it } from 'vitest';
import type { OutgoingReply } from '../../../core/turn-record.js';
import { verifyCallback, type CallbackClaim } from '../../approvals/callback-signature.js';
import { parseManyChatWebhook } from './inbound-schema.js';
import { signedQuickReplies } from './signed-quick-replies.js';

const SECRET = 'quick-reply-secret';
const URL_ = 'https://agent.example.test/v1/manychat/tenant_a';
type Payload = { contact: { id: string }; callback: Record<string, string>; sig: string };

const confirmReply: OutgoingReply = {
  text: 'Shall I?',
  quickReplies: [
    { caption: 'Yes', callback: { pendingId: 'cf_1', answer: 'yes', nonce: 'n1' } },
    { caption: 'No', callback: { pendingId: 'cf_1', answer: 'no', nonce: 'n1' } },
  ],
};
const suggestReply: OutgoingReply = { text: 'Which one?', quickReplies: [{ caption: 'Yoga' }, { caption: 'Pilates' }] };

describe('signedQuickReplies: every quick reply as a signed ManyChat callback button', () => {
  it("a confirmation's Yes/No: bound to the row, the answer and the nonce, posting back to the webhook", async () => {
    const buttons = await signedQuickReplies(confirmReply, URL_, SECRET, 'tenant_a', '1001');
    expect(
      buttons.map(({ payload, ...rest }) => [rest, (payload as Payload).contact, (payload as Payload).callback]),
    ).toEqual([
      [
        { type: 'dynamic_block_callback', caption: 'Yes', url: URL_, method: 'post' },
        { id: '1001' },
        { kind: 'confirm', pendingId: 'cf_1', answer: 'yes', nonce: 'n1' },
      ],
      [
        { type: 'dynamic_block_callback', caption: 'No', url: URL_, method: 'post' },
        { id: '1001' },
        { kind: 'confirm', pendingId: 'cf_1', answer: 'no', nonce: 'n1' },
      ],
    ]);
  });

  it('each signature verifies for its own tenant, contact and answer only', async () => {
    const [yes] = await signedQuickReplies(confirmReply, URL_, SECRET, 'tenant_a', '1001');
    const { sig, callback } = yes!.payload as Payload;
    const claim = {
      kind: 'confirm',
      tenantId: 'tenant_a',
      contactId: '1001',
      pendingId: callback.pendingId,
      answer: callback.answer,
      nonce: callback.nonce,
    } as CallbackClaim;
    expect(await verifyCallback(SECRET, claim, sig)).toBe(true);
    expect(await verifyCallback(SECRET, { ...claim, tenantId: 'tenant_b' }, sig)).toBe(false);
    expect(await verifyCallback(SECRET, { ...claim, contactId: '1002' }, sig)).toBe(false);
    expect(await verifyCallback(SECRET, { ...claim, answer: 'no' } as CallbackClaim, sig)).toBe(false);
  });

  it('a suggestion carries its caption as the text and a fresh nonce per button and per answer', async () => {
    const first = await signedQuickReplies(suggestReply, URL_, SECRET, 'tenant_a', '1001');
    const again = await signedQuickReplies(suggestReply, URL_, SECRET, 'tenant_a', '1001');
    const callbacks = [...first, ...again].map((b) => (b.payload as Payload).callback);
    expect(callbacks.map((c) => [c.kind, c.text])).toEqual([
      ['suggest', 'Yoga'],
      ['suggest', 'Pilates'],
      ['suggest', 'Yoga'],
      ['suggest', 'Pilates'],
    ]);
    for (const c of callbacks) expect(c.nonce).toMatch(/^[0-9a-f]{32}$/);
    expect(new Set(callbacks.map((c) => c.nonce)).size).toBe(4);
    for (const b of first) {
      const { sig, callback } = b.payload as Payload;
      expect(
        await verifyCallback(
          SECRET,
          { kind: 'suggest', tenantId: 'tenant_a', contactId: '1001', text: callback.text!, nonce: callback.nonce! },
          sig,
        ),
      ).toBe(true);
    }
  });

  it('the tenant is not in the payload (it comes from the path), and the payload is a valid webhook body', async () => {
    for (const reply of [confirmReply, suggestReply]) {
      for (const b of await signedQuickReplies(reply, URL_, SECRET, 'tenant_a', '1001')) {
        expect(JSON.stringify(b.payload)).not.toContain('tenant_a');
        const parsed = parseManyChatWebhook(b.payload);
        expect(parsed.ok).toBe(true);
      }
    }
  });

  it('no quick replies, no buttons', async () => {
    expect(await signedQuickReplies({ text: 'hi', quickReplies: [] }, URL_, SECRET, 'tenant_a', '1001')).toEqual([]);
  });
});
