import type { ManyChatCallbackButton } from '../../../core/actions/channel-api.js';
import type { OutgoingReply } from '../../../core/turn-record.js';
import { signCallback, type CallbackClaim } from '../../approvals/callback-signature.js';
import type { ManyChatChannel } from '../../../core/manychat-channels.js';
import type { SecretsInput } from '../../../core/security/signing-keys.js';

/**
 * Every quick reply as a signed button: a confirmation's Yes/No (bound to its pinned row), or a
 * model suggestion (its caption becomes the contact's next message). Used in the webhook's
 * Dynamic Block and in the outbox's sendContent of a deferred reply, so buttons work either way.
 * The press carries the channel it was rendered for (unsigned: it only picks the answer's shape),
 * since ManyChat posts the payload as it is, without Full Contact Data.
 */
export async function signedQuickReplies(
  reply: OutgoingReply,
  callbackUrl: string,
  secret: SecretsInput,
  tenantId: string,
  contactId: string,
  channel?: ManyChatChannel,
): Promise<ManyChatCallbackButton[]> {
  return Promise.all(
    reply.quickReplies.map(async (q) => {
      const claim: CallbackClaim = q.callback
        ? { kind: 'confirm', tenantId, contactId, ...q.callback }
        : { kind: 'suggest', tenantId, contactId, text: q.caption, nonce: crypto.randomUUID().replace(/-/g, '') };
      const { tenantId: _tenant, contactId: _contact, ...callback } = claim;
      return {
        type: 'dynamic_block_callback' as const,
        caption: q.caption,
        url: callbackUrl,
        method: 'post' as const,
        payload: {
          contact: { id: contactId },
          ...(channel && channel !== 'facebook' ? { channel } : {}),
          callback,
          sig: await signCallback(secret, claim),
        },
      };
    }),
  );
}
