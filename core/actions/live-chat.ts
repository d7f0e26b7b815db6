import { z } from 'zod';
import { defineActionKind } from './action-kind.js';
import { MANYCHAT_CHANNELS } from '../manychat-channels.js';

/**
 * Assigning the conversation to the tenant's live chat, part of a handoff. ManyChat's public API
 * has no endpoint for it, so it is recorded as done with a note and nothing is called; the
 * handoff's visible effect is its tag (an ordinary add_tag action).
 */
export const LIVE_CHAT_NOTE =
  'recorded only: the ManyChat public API has no live-chat assignment endpoint, so nothing was called';

export const liveChat = defineActionKind({
  name: 'live_chat',
  args: z.object({}),
  messagesContact: false,
  idempotent: true,
  resource: () => null,
  check: () => null,
  summary: () => 'assign the conversation to live chat',
  undoKind: null,
  // ManyChat's API performs it on every channel it serves (docs/protocols.md).
  manyChatChannels: MANYCHAT_CHANNELS,
  perform: { manychat: async () => ({ ok: true, note: LIVE_CHAT_NOTE }) },
});
