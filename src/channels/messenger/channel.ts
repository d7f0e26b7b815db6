import type { ChannelDefinition } from '../channel.js';
import { messengerQuickReplies } from './quick-replies.js';

/**
 * Messenger: the webhook is answered 200 at once; every reply goes through the outbox (Send API),
 * in the order of the contact's messages, judged against the 24-hour window when it is sent.
 */
export const messengerChannel: ChannelDefinition = {
  name: 'messenger',
  replies: 'outbox',
  orderedReplies: true,
  renderButtons: (reply, ctx) => messengerQuickReplies(reply, ctx.secret, ctx.tenantId, ctx.contactId),
  // The contact's message time starts the window; the receive time if the channel gave none.
  replyArgs: (inbound) => ({ lastInboundAt: inbound.contact.lastInteraction ?? inbound.receivedAt }),
};
