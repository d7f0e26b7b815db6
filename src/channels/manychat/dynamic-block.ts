import type { OutgoingReply } from '../../domain/turn-record.js';

/**
 * ManyChat Dynamic Block v2 response. Quick replies with a callback become
 * `dynamic_block_callback` buttons that post their signed payload back to our webhook; plain
 * suggestions are omitted from buttons (ManyChat has no caption-only quick reply) and the text
 * already carries them.
 */
export interface DynamicBlockResponse {
  version: 'v2';
  content: {
    messages: { type: 'text'; text: string }[];
    actions: never[];
    quick_replies: { type: 'dynamic_block_callback'; caption: string; url: string; method: 'post'; payload: Record<string, unknown> }[];
  };
}

export function toDynamicBlock(reply: OutgoingReply, callbackUrl: string, signed: (cb: NonNullable<OutgoingReply['quickReplies'][number]['callback']>) => Record<string, unknown>): DynamicBlockResponse {
  return {
    version: 'v2',
    content: {
      messages: reply.text ? [{ type: 'text', text: reply.text }] : [],
      actions: [],
      quick_replies: reply.quickReplies
        .filter((q) => q.callback)
        .map((q) => ({ type: 'dynamic_block_callback' as const, caption: q.caption, url: callbackUrl, method: 'post' as const, payload: signed(q.callback!) })),
    },
  };
}
