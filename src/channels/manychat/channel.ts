import type { ChannelDefinition } from '../channel.js';
import { signedQuickReplies } from './signed-quick-replies.js';

/**
 * ManyChat: the reply rides in the Dynamic Block answer when in time; buttons post back to the
 * webhook. A reply through the outbox carries the contact's channel (its sendContent shape) and
 * the channel's last-interaction time (its messaging window, judged at delivery).
 */
export const manyChatChannel: ChannelDefinition = {
  name: 'manychat',
  replies: 'webhook',
  orderedReplies: false,
  renderButtons: async (reply, ctx) =>
    ctx.callbackUrl
      ? signedQuickReplies(
          { text: '', quickReplies: reply.quickReplies },
          ctx.callbackUrl,
          ctx.secret,
          ctx.tenantId,
          ctx.contactId,
          ctx.surface,
        )
      : [],
  replyArgs: (inbound) => ({
    ...(inbound.surface ? { surface: inbound.surface } : {}),
    ...(inbound.contact.lastInteraction && !Number.isNaN(Date.parse(inbound.contact.lastInteraction))
      ? { lastInboundAt: new Date(Date.parse(inbound.contact.lastInteraction)).toISOString() }
      : {}),
  }),
};
