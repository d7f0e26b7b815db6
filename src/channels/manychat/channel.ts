import type { ChannelDefinition } from '../channel.js';
import { signedQuickReplies } from './signed-quick-replies.js';

/** ManyChat: the reply rides in the Dynamic Block answer when in time; buttons post back to the webhook. */
export const manyChatChannel: ChannelDefinition = {
  name: 'manychat',
  replies: 'webhook',
  orderedReplies: false,
  renderButtons: async (reply, ctx) => (ctx.callbackUrl ? signedQuickReplies({ text: '', quickReplies: reply.quickReplies }, ctx.callbackUrl, ctx.secret, ctx.tenantId, ctx.contactId) : []),
  replyArgs: () => ({}),
};
