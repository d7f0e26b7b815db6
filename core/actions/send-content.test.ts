import { describe, expect, it } from 'vitest';
import { testConfig } from '../../test/support/guardrail-input.js';
import { recordingManyChatApi } from '../../test/support/recording-manychat-api.js';
import { sendContent } from './send-content.js';

describe('send_content', () => {
  const config = testConfig({}, { actions: { mediaHosts: ['cdn.studio.example'] } });
  const button = { type: 'dynamic_block_callback', caption: 'Yes', url: 'https://agent.example/v1/manychat/demo', method: 'post', payload: { a: 1 } };
  it('is a system kind: no staging tool, not idempotent, no configured resource', () => {
    expect(sendContent.tool).toBeNull();
    expect(sendContent.stageable).toBe(false);
    expect(sendContent.idempotent).toBe(false);
    expect(sendContent.resource({ text: 'hi' })).toBeNull();
  });
  it('checks media against the allow-list, but not its own signed buttons', () => {
    expect(sendContent.check({ text: 'hi', quickReplies: [button] }, config)).toBeNull();
    expect(sendContent.check({ text: 'hi', image_url: 'https://evil.example/x.png' }, config)).toContain('not in the tenant');
    expect(sendContent.check({ text: 'hi', media: ['https://evil.example/x.png'] }, config)).toContain('not in the tenant');
    expect(sendContent.check({ text: '' }, config)).toContain('invalid send_content arguments');
  });
  it('is performed with sendContent, buttons and message tag passed through', async () => {
    const { api, calls } = recordingManyChatApi();
    await sendContent.perform('manychat', { manychat: api }, '7', { text: 'hi', quickReplies: [button], messageTag: 'HUMAN_AGENT' });
    await sendContent.perform('manychat', { manychat: api }, '7', { text: 'plain' });
    expect(calls).toEqual([
      ['sendContent', '7', { text: 'hi', quickReplies: [button] }, 'HUMAN_AGENT'],
      ['sendContent', '7', { text: 'plain' }, undefined],
    ]);
  });
});
