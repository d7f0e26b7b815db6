import { describe, expect, it } from 'vitest';
import { testConfig } from '../../test/support/guardrail-input.js';
import { recordingManyChatApi } from '../../test/support/recording-manychat-api.js';
import { addTag, removeTag } from './tag-kinds.js';

const config = testConfig();

describe('add_tag / remove_tag', () => {
  it('resolve a configured tag, or refuse naming the allowed tags', () => {
    expect(addTag.tool!.resolve({ tag: 'interested' }, config)).toEqual({
      ok: true,
      args: { tag: 'interested' },
      summary: 'add tag "interested"',
    });
    expect(removeTag.tool!.resolve({ tag: 'interested' }, config)).toEqual({
      ok: true,
      args: { tag: 'interested' },
      summary: 'remove tag "interested"',
    });
    const refused = addTag.tool!.resolve({ tag: 'gold' }, config);
    expect(refused.ok).toBe(false);
    expect(!refused.ok && refused.refusal).toContain(`Allowed tags: ${config.tags.map((t) => t.name).join(', ')}`);
  });
  it('check the tag is configured, act on the tag as a resource, and undo each other', () => {
    expect(addTag.check({ tag: 'interested' }, config)).toBeNull();
    expect(removeTag.check({ tag: 'gold' }, config)).toBe('tag "gold" is not configured');
    expect(addTag.resource({ tag: 'vip' })).toBe('tag:vip');
    expect(removeTag.resource({ tag: 'vip' })).toBe('tag:vip');
    expect([addTag.undoKind, removeTag.undoKind]).toEqual(['remove_tag', 'add_tag']);
    expect(addTag.idempotent && removeTag.idempotent).toBe(true);
  });
  it('are performed with ManyChat addTagByName / removeTagByName', async () => {
    const { api, calls } = recordingManyChatApi();
    await addTag.perform('manychat', { manychat: api }, '7', { tag: 'vip' });
    await removeTag.perform('manychat', { manychat: api }, '7', { tag: 'vip' });
    expect(calls).toEqual([
      ['addTagByName', '7', 'vip'],
      ['removeTagByName', '7', 'vip'],
    ]);
  });
});
