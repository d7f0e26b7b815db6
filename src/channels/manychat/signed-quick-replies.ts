import type { ManyChatCallbackButton } from '../../../core/actions/channel-api.js';
import type { OutgoingReply } from '../../../core/turn-record.js';
import { signCallback, type CallbackClaim } from '../../approvals/callback-signature.js';

/**
 * Every quick reply as a signed button: a confirmation's Yes/No (bound to its pinned row), or a
 * model suggestion (its caption becomes the contact's next message). Used in the webhook's
 * Dynamic Block and in the outbox's sendContent of a deferred reply, so buttons work either way.
 */
export async function signedQuickReplies(reply: OutgoingReply, callbackUrl: string, secret: string, tenantId: string, contactId: string): Promise<ManyChatCallbackButton[]> {
  return Promise.all(
    reply.quickReplies.map(async (q) => {
      const claim: CallbackClaim = q.callback
        ? { kind: 'confirm', tenantId, contactId, ...q.callback }
        : { kind: 'suggest', tenantId, contactId, text: q.caption, nonce: crypto.randomUUID().replace(/-/g, '') };
      const { tenantId: _tenant, contactId: _contact, ...callback } = claim;
      return { type: 'dynamic_block_callback' as const, caption: q.caption, url: callbackUrl, method: 'post' as const, payload: { contact: { id: contactId }, callback, sig: await signCallback(secret, claim) } };
    }),
  );
}
