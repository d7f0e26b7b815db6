import { z } from 'zod';
import type { MessengerQuickReply } from '../../../core/actions/channel-api.js';
import { KeyIdSchema } from '../../../core/storage/keys.js';
import type { OutgoingReply } from '../../../core/turn-record.js';
import { signCallback, verifyCallback } from '../../approvals/callback-signature.js';
import type { SecretsInput } from '../../../core/security/signing-keys.js';

/**
 * A reply's buttons as Messenger quick replies. A confirmation's Yes/No carries a payload signed
 * over tenant, contact, row, answer and the row's nonce (src/approvals/callback-signature.ts), so
 * it confirms only that row for that contact; Meta hands the payload back in
 * `message.quick_reply.payload` (or a postback's `payload`). A model suggestion needs no payload
 * of its own: pressing it sends its title as the contact's next message, an ordinary message.
 */
export const SUGGESTION_PAYLOAD = 'sa1:suggest';

const ConfirmPayloadSchema = z.strictObject({
  sa: z.literal(1),
  kind: z.literal('confirm'),
  pendingId: KeyIdSchema,
  answer: z.enum(['yes', 'no']),
  nonce: z.string().min(1).max(200),
  sig: z.string().regex(/^[0-9a-f]{64}$/),
});
export type ConfirmPayload = z.infer<typeof ConfirmPayloadSchema>;

export async function messengerQuickReplies(
  reply: Pick<OutgoingReply, 'quickReplies'>,
  secret: SecretsInput,
  tenantId: string,
  contactId: string,
): Promise<MessengerQuickReply[]> {
  return Promise.all(
    reply.quickReplies.map(async (q) => {
      if (!q.callback) return { content_type: 'text' as const, title: q.caption, payload: SUGGESTION_PAYLOAD };
      const sig = await signCallback(secret, { kind: 'confirm', tenantId, contactId, ...q.callback });
      const payload: ConfirmPayload = { sa: 1, kind: 'confirm', ...q.callback, sig };
      return { content_type: 'text' as const, title: q.caption, payload: JSON.stringify(payload) };
    }),
  );
}

/** A payload that claims to be one of our confirmation buttons (signature not yet checked), or null. */
export function readConfirmPayload(payload: string | undefined): ConfirmPayload | null {
  if (!payload || !payload.startsWith('{')) return null;
  let value: unknown;
  try {
    value = JSON.parse(payload);
  } catch {
    return null;
  }
  const parsed = ConfirmPayloadSchema.safeParse(value);
  return parsed.success ? parsed.data : null;
}

/** Whether the payload's signature binds it to this tenant and this contact (constant time). */
export function confirmPayloadVerifies(
  payload: ConfirmPayload,
  secret: SecretsInput,
  tenantId: string,
  contactId: string,
): Promise<boolean> {
  const { sig, pendingId, answer, nonce } = payload;
  return verifyCallback(secret, { kind: 'confirm', tenantId, contactId, pendingId, answer, nonce }, sig);
}
