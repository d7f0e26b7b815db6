import { z } from 'zod';
import { defineActionKind } from './action-kind.js';
import { ManyChatChannelSchema } from '../manychat-channels.js';
import { MANYCHAT_CHANNELS } from '../manychat-channels.js';
import type { ActionConfigView } from './config-view.js';

/**
 * A text message (with optional signed buttons). Sent by the system (a deferred turn's reply, an
 * approval's notice), or staged by a tenant's `send_content` tool: then it is one of the tenant's
 * prepared messages (`contents`), chosen by name, its text copied from the configuration. The
 * model never writes what this action sends, so a contact is only ever sent text that passed the
 * guardrails, that the product wrote, or that the tenant wrote.
 */
const CallbackButton = z.object({
  type: z.literal('dynamic_block_callback'),
  caption: z.string().min(1).max(20),
  url: z.url(),
  method: z.literal('post'),
  payload: z.record(z.string(), z.unknown()),
});
/** A Messenger quick reply (the channel's button form; src/channels/messenger/quick-replies.ts signs it). */
const MessengerQuickReply = z.object({
  content_type: z.literal('text'),
  title: z.string().min(1).max(20),
  payload: z.string().min(1).max(1000),
});

export const sendContent = defineActionKind({
  name: 'send_content',
  // Loose: media a future content may carry stays visible to the media check.
  args: z.looseObject({
    text: z.string().min(1),
    /** The tenant's prepared message this sends (staged by a tool); absent for the system's own messages. */
    content: z.string().min(1).optional(),
    messageTag: z.string().min(1).optional(),
    quickReplies: z
      .array(z.union([CallbackButton, MessengerQuickReply]))
      .max(11)
      .optional(),
    /** When the contact last wrote (Messenger: the message's timestamp; ManyChat: the channel's own last-interaction time): the window is judged from it at delivery. */
    lastInboundAt: z.iso.datetime().optional(),
    /** ManyChat: the contact's channel, so the content has its shape (`content.type`, buttons) and its window. Absent: Facebook. */
    surface: ManyChatChannelSchema.optional(),
  }),
  messagesContact: true,
  idempotent: false,
  // A prepared message is a resource a gate binds to, like a flow; the system's own messages are not.
  resource: (args) => (args.content === undefined ? null : `content:${args.content}`),
  check: (args, config) => {
    const { quickReplies: _buttons, lastInboundAt: _at, surface: _surface, ...content } = args;
    return preparedProblem(args, config) ?? mediaProblem({ args: content }, config.guardrails.actions.mediaHosts);
  },
  summary: (args, config) => {
    // A system message has no content name, and no prepared message is named undefined.
    const prepared = config.contents.find((c) => c.name === args.content);
    if (prepared) return `send "${prepared.name}" (${prepared.description})`;
    return `send a message: "${args.text.length > 60 ? `${args.text.slice(0, 59)}…` : args.text}"`;
  },
  undoKind: null,
  contactWords: 'actionSendContent',
  claims: ['send'],
  // ManyChat's API performs it on every channel it serves (docs/protocols.md).
  manyChatChannels: MANYCHAT_CHANNELS,
  perform: {
    manychat: (api, contactId, args, entry) => {
      const buttons = args.quickReplies?.filter((q) => 'type' in q);
      // A system reply names its channel and time; a prepared message or a notice takes the entry's
      // (the turn's contact, or the channel the pinned row remembered).
      const surface = args.surface ?? entry.surface;
      const lastInboundAt = args.lastInboundAt ?? entry.lastInboundAt;
      const target = {
        ...(surface ? { channel: surface } : {}),
        ...(lastInboundAt ? { lastInboundAt } : {}),
      };
      return api.sendContent(
        contactId,
        { text: args.text, ...(buttons?.length ? { quickReplies: buttons } : {}) },
        args.messageTag,
        target,
      );
    },
    messenger: (api, contactId, args) => {
      const quickReplies = args.quickReplies?.filter((q) => 'content_type' in q);
      return api.sendMessage(
        contactId,
        { text: args.text, ...(quickReplies?.length ? { quickReplies } : {}) },
        {
          ...(args.lastInboundAt ? { lastInboundAt: args.lastInboundAt } : {}),
          ...(args.messageTag ? { messageTag: args.messageTag } : {}),
        },
      );
    },
  },
  tool: {
    resources: (config) => config.contents.map((c) => `content:${c.name}`),
    narrow: (config, keep) => ({ ...config, contents: config.contents.filter((c) => keep(`content:${c.name}`)) }),
    describe: (config) =>
      `Prepared messages: ${config.contents.map((c) => `${c.name} (${c.description})`).join('; ') || 'none configured'}.`,
    input: (config) =>
      z.object({
        content: z.string().describe(`One of: ${config.contents.map((c) => c.name).join(', ') || '(none)'}`),
      }),
    resolve({ content }, config) {
      const found = config.contents.find((c) => c.name === content);
      if (!found)
        return {
          ok: false,
          refusal: `Refused: message "${content}" is not configured. Allowed messages: ${config.contents.map((c) => c.name).join(', ') || 'none'}.`,
        };
      return { ok: true, args: { content: found.name, text: found.text } };
    },
  },
});

/**
 * A prepared message must be configured and carry exactly its configured text and nothing a
 * system message has (a tag, buttons): what the contact is sent is what the tenant wrote.
 */
function preparedProblem(
  args: {
    content?: string | undefined;
    text: string;
    messageTag?: string | undefined;
    quickReplies?: readonly unknown[] | undefined;
  },
  config: ActionConfigView,
): string | null {
  if (args.content === undefined) return null;
  const prepared = config.contents.find((c) => c.name === args.content);
  if (!prepared) return `message "${args.content}" is not configured`;
  if (prepared.text !== args.text)
    return `message "${args.content}" was staged with text other than its configured text`;
  if (args.messageTag !== undefined) return `message "${args.content}" was staged with a message tag`;
  if (args.quickReplies !== undefined) return `message "${args.content}" was staged with buttons`;
  return null;
}

/**
 * Every media URL the content carries must be https on a host in the tenant's media allow-list.
 * (Our own signed buttons' callback URLs are not media; the caller leaves them out.)
 */
export function mediaProblem(action: { args: Record<string, unknown> }, mediaHosts: readonly string[]): string | null {
  for (const url of mediaUrls(action.args)) {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      return `media "${url.slice(0, 80)}" is not a URL`;
    }
    if (parsed.protocol !== 'https:') return `media "${parsed.href.slice(0, 80)}" is not https`;
    const host = parsed.hostname.toLowerCase();
    const allowed = mediaHosts.some((h) =>
      h.startsWith('*.') ? host.endsWith(h.slice(1)) && host.length > h.length - 1 : host === h,
    );
    if (!allowed) return `media host "${host}" is not in the tenant's media allow-list`;
  }
  return null;
}

/** URLs under the keys ManyChat content uses for media (`url`, `image_url`, `media`…), at any depth. */
function mediaUrls(value: unknown, key = ''): string[] {
  if (typeof value === 'string')
    return /^(?:url|image_url|video_url|audio_url|file_url|media|media_url|src)$/i.test(key) ? [value] : [];
  if (Array.isArray(value)) return value.flatMap((v) => mediaUrls(v, key));
  if (value && typeof value === 'object') return Object.entries(value).flatMap(([k, v]) => mediaUrls(v, k));
  return [];
}
