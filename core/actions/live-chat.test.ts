import { describe, expect, it } from 'vitest';
import { LIVE_CHAT_NOTE, liveChat } from './live-chat.js';
import { recordingManyChatApi } from '../../test/support/recording-manychat-api.js';

describe('live_chat', () => {
  it('is recorded as done with a note, calling nothing (ManyChat has no endpoint for it)', async () => {
    const { api, calls } = recordingManyChatApi();
    expect(await liveChat.perform('manychat', { manychat: api }, '7', {})).toEqual({ ok: true, note: LIVE_CHAT_NOTE });
    expect(calls).toEqual([]);
    expect(liveChat.stageable).toBe(false);
  });
});
