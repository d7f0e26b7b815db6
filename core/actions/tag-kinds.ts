import { z } from 'zod';
import type { ActionConfigView } from './config-view.js';
import { MANYCHAT_CHANNELS } from '../manychat-channels.js';
import { defineActionKind, type StagingToolSpec } from './action-kind.js';

/** Adding and removing a configured tag: each the other's undo, both safe to repeat. */
const TagArgs = z.object({ tag: z.string().min(1) });
type TagArgs = z.infer<typeof TagArgs>;

function tagProblem(args: TagArgs, config: ActionConfigView): string | null {
  return config.tags.some((t) => t.name === args.tag) ? null : `tag "${args.tag}" is not configured`;
}

const tagTool: StagingToolSpec<{ tag: string }, TagArgs> = {
  resources: (config) => config.tags.map((t) => `tag:${t.name}`),
  narrow: (config, keep) => ({ ...config, tags: config.tags.filter((t) => keep(`tag:${t.name}`)) }),
  describe: (config) => `Tags: ${config.tags.map((t) => t.name).join(', ') || 'none configured'}.`,
  input: (config) =>
    z.object({ tag: z.string().describe(`One of: ${config.tags.map((t) => t.name).join(', ') || '(none)'}`) }),
  resolve({ tag }, config) {
    const allowed = config.tags.map((t) => t.name);
    if (!allowed.includes(tag))
      return {
        ok: false,
        refusal: `Refused: tag "${tag}" is not configured. Allowed tags: ${allowed.join(', ') || 'none'}.`,
      };
    return { ok: true, args: { tag } };
  },
};

export const addTag = defineActionKind({
  name: 'add_tag',
  args: TagArgs,
  messagesContact: false,
  idempotent: true,
  resource: (args) => `tag:${args.tag}`,
  check: tagProblem,
  summary: (args) => `add tag "${args.tag}"`,
  undoKind: 'remove_tag',
  contactWords: 'actionAddTag',
  claims: ['tag'],
  // ManyChat's API performs it on every channel it serves (docs/protocols.md).
  manyChatChannels: MANYCHAT_CHANNELS,
  perform: { manychat: (api, contactId, args) => api.addTagByName(contactId, args.tag) },
  tool: tagTool,
});

export const removeTag = defineActionKind({
  name: 'remove_tag',
  args: TagArgs,
  messagesContact: false,
  idempotent: true,
  resource: (args) => `tag:${args.tag}`,
  check: tagProblem,
  summary: (args) => `remove tag "${args.tag}"`,
  undoKind: 'add_tag',
  contactWords: 'actionRemoveTag',
  // Taking a tag away is a removal too ("I've removed you from the list").
  claims: ['tag', 'delete'],
  // ManyChat's API performs it on every channel it serves (docs/protocols.md).
  manyChatChannels: MANYCHAT_CHANNELS,
  perform: { manychat: (api, contactId, args) => api.removeTagByName(contactId, args.tag) },
  tool: tagTool,
});
