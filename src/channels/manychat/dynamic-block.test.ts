import { describe, expect, it } from 'vitest';
import type { ManyChatCallbackButton } from '../../../core/actions/channel-api.js';
import { toDynamicBlock } from './dynamic-block.js';

const button: ManyChatCallbackButton = {
  type: 'dynamic_block_callback',
  caption: 'Yes',
  url: 'https://agent.example.test/v1/manychat/t',
  method: 'post',
  payload: { sig: 'x' },
};

describe('toDynamicBlock: the ManyChat Dynamic Block v2 answer', () => {
  it('the reply as one text message, the buttons as quick replies, no actions', () => {
    expect(toDynamicBlock({ text: 'Hello!' }, [button])).toEqual({
      version: 'v2',
      content: { messages: [{ type: 'text', text: 'Hello!' }], actions: [], quick_replies: [button] },
    });
  });

  it('an empty reply (silence: a contact with a human) sends no message at all', () => {
    expect(toDynamicBlock({ text: '' })).toEqual({
      version: 'v2',
      content: { messages: [], actions: [], quick_replies: [] },
    });
  });

  it('never performs anything through the block: actions are always empty', () => {
    expect(toDynamicBlock({ text: 'x' }, [button, button]).content.actions).toEqual([]);
  });
});
