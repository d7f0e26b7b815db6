import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineActionKind } from './action-kind.js';
import { ACTION_KINDS, ACTION_KIND_NAMES, STAGEABLE_KIND_NAMES } from './index.js';
import { ActionKindSchema } from '../staged-action.js';
import { ToolInstanceSchema } from '../tenant/tenant-config.js';

describe('action kind registry', () => {
  it('names every definition by its own key', () => {
    for (const [key, kind] of Object.entries(ACTION_KINDS)) expect(kind.name).toBe(key);
  });
  it('is the vocabulary of staged actions and of the tools a tenant may configure', () => {
    expect(ActionKindSchema.options).toEqual(ACTION_KIND_NAMES);
    expect(STAGEABLE_KIND_NAMES).toEqual(['send_flow', 'send_content', 'add_tag', 'remove_tag', 'set_field']);
    for (const kind of STAGEABLE_KIND_NAMES) expect(ToolInstanceSchema.shape.kind.safeParse(kind).success).toBe(true);
    // System-only kinds cannot be offered to the model (send_content can: a tenant's prepared messages).
    expect(ToolInstanceSchema.shape.kind.safeParse('live_chat').success).toBe(false);
  });
  it('sends are performed at most once; tags and fields may be repeated', () => {
    expect(ACTION_KIND_NAMES.filter((k) => !ACTION_KINDS[k].idempotent)).toEqual(['send_flow', 'send_content']);
    expect(ACTION_KIND_NAMES.filter((k) => ACTION_KINDS[k].messagesContact)).toEqual(['send_flow', 'send_content']);
  });
  it('a kind the model may stage carries its words and its claim topics; a definition without them is refused', () => {
    for (const name of STAGEABLE_KIND_NAMES) {
      expect(ACTION_KINDS[name].contactWords, name).toMatch(/^action[A-Z]/);
      expect(ACTION_KINDS[name].claims.length, name).toBeGreaterThan(0);
    }
    // Removing a tag speaks to "removed" claims as well as to tag claims.
    expect(ACTION_KINDS.remove_tag.claims).toEqual(['tag', 'delete']);
    const stageable = {
      name: 'book_class',
      args: z.object({ classId: z.string() }),
      idempotent: true,
      messagesContact: false,
      resource: (a: { classId: string }) => `class:${a.classId}`,
      check: () => null,
      summary: (a: { classId: string }) => `book class ${a.classId}`,
      undoKind: null,
      manyChatChannels: [],
      perform: {},
      tool: {
        resources: () => [],
        narrow: (c: never) => c,
        describe: () => '',
        input: () => z.object({ classId: z.string() }),
        resolve: (i: { classId: string }) => ({ ok: true as const, args: i }),
      },
    };
    expect(() => defineActionKind(stageable)).toThrow(/book_class: a stageable kind needs contactWords and claims/);
    expect(() => defineActionKind({ ...stageable, contactWords: 'actionSendFlow', claims: [] })).toThrow(
      /needs contactWords and claims/,
    );
    expect(defineActionKind({ ...stageable, contactWords: 'actionSendFlow', claims: ['send'] }).claims).toEqual([
      'send',
    ]);
    // A system-only kind needs neither.
    expect(ACTION_KINDS.live_chat.contactWords).toBeNull();
  });
  it('an undo names a kind that exists', () => {
    for (const kind of Object.values(ACTION_KINDS))
      if (kind.undoKind) expect(ACTION_KIND_NAMES).toContain(kind.undoKind);
  });
  it('an action cannot be performed on a channel its kind does not serve, nor with arguments its kind refuses', async () => {
    expect(await ACTION_KINDS.send_flow.perform('messenger', {}, '1', { flowNs: 'ns', flowName: 'x' })).toMatchObject({
      ok: false,
      kind: 'permanent',
      message: expect.stringContaining('channel "messenger"'),
    });
    expect(await ACTION_KINDS.send_flow.perform('manychat', {}, '1', { flowNs: '' })).toMatchObject({
      ok: false,
      kind: 'permanent',
      message: expect.stringContaining('invalid send_flow arguments'),
    });
  });
});
