import type { OutgoingReply } from '../../domain/turn-record.js';

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
    quick_replies: { type: 'dynamic_block_callback'; caption: string; url: string; method: 'post'; payload: Record<string, unknown> }[];
  };
}

export function toDynamicBlock(reply: OutgoingReply, callbackUrl: string, payloads: Record<string, unknown>[] = []): DynamicBlockResponse {
  return {
    version: 'v2',
    content: {
      messages: reply.text ? [{ type: 'text', text: reply.text }] : [],
      actions: [],
      quick_replies: reply.quickReplies.map((q, i) => ({ type: 'dynamic_block_callback' as const, caption: q.caption, url: callbackUrl, method: 'post' as const, payload: payloads[i] ?? {} })),
    },
  };
}
