import type { OutgoingReply } from '../../../core/turn-record.js';
import type { ManyChatCallbackButton } from '../../../core/actions/channel-api.js';

/**
 * ManyChat Dynamic Block v2 response. Every quick reply becomes a `dynamic_block_callback` button
 * that posts its signed payload back to our webhook (ManyChat has no caption-only quick reply):
 * a confirmation's Yes/No, or a model suggestion whose caption becomes the contact's next message.
 */
export interface DynamicBlockResponse {
  version: 'v2';
  content: {
    messages: { type: 'text'; text: string }[];
    actions: never[];
    quick_replies: ManyChatCallbackButton[];
  };
}

export function toDynamicBlock(reply: Pick<OutgoingReply, 'text'>, quickReplies: ManyChatCallbackButton[] = []): DynamicBlockResponse {
  return {
    version: 'v2',
    content: {
      messages: reply.text ? [{ type: 'text', text: reply.text }] : [],
      actions: [],
      quick_replies: quickReplies,
    },
  };
}
