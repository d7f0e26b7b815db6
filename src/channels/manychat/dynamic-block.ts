import type { OutgoingReply } from '../../../core/turn-record.js';
import type { ManyChatCallbackButton } from '../../../core/actions/channel-api.js';
import { renderManyChatContent, type ManyChatChannel, type ManyChatContent } from '../../../core/manychat-channels.js';

/**
 * ManyChat Dynamic Block v2 response, in the shape the contact's channel accepts
 * (core/manychat-channels.ts): `content.type` on Instagram, WhatsApp and Telegram; every button a
 * signed `dynamic_block_callback` that posts its payload back to our webhook — as quick replies
 * on Facebook and Instagram, on the text message on WhatsApp and Telegram (no quick replies there).
 */
export interface DynamicBlockResponse {
  version: 'v2';
  content: ManyChatContent;
}

export function toDynamicBlock(
  reply: Pick<OutgoingReply, 'text'>,
  quickReplies: ManyChatCallbackButton[] = [],
  channel: ManyChatChannel = 'facebook',
): DynamicBlockResponse {
  return { version: 'v2', content: renderManyChatContent(channel, reply.text, quickReplies) };
}
