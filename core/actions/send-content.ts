import { z } from 'zod';
import { defineActionKind } from './action-kind.js';

/**
 * A text message (with optional signed buttons), sent by the system: a deferred turn's reply,
 * an approval's notice. The model cannot stage it (no tool), so a contact is only ever sent text
 * that passed the guardrails or that the product wrote.
 */
const CallbackButton = z.object({
  type: z.literal('dynamic_block_callback'),
  caption: z.string().min(1).max(20),
  url: z.url(),
  method: z.literal('post'),
  payload: z.record(z.string(), z.unknown()),
});
/** A Messenger quick reply (the channel's button form; src/channels/messenger/quick-replies.ts signs it). */
const MessengerQuickReply = z.object({ content_type: z.literal('text'), title: z.string().min(1).max(20), payload: z.string().min(1).max(1000) });

export const sendContent = defineActionKind({
  name: 'send_content',
  // Loose: media a future content may carry stays visible to the media check.
  args: z.looseObject({
    text: z.string().min(1),
    messageTag: z.string().min(1).optional(),
    quickReplies: z.array(z.union([CallbackButton, MessengerQuickReply])).max(11).optional(),
    /** When the contact last wrote (Messenger: the message's timestamp): the 24-hour window is judged from it at delivery. */
    lastInboundAt: z.iso.datetime().optional(),
  }),
  messagesContact: true,
  idempotent: false,
  resource: () => null,
  check: ({ quickReplies: _buttons, lastInboundAt: _at, ...content }, config) => mediaProblem({ args: content }, config.guardrails.actions.mediaHosts),
  summary: (args) => `send a message: "${args.text.length > 60 ? `${args.text.slice(0, 59)}…` : args.text}"`,
  undoKind: null,
  perform: {
    manychat: (api, contactId, args) => {
      const buttons = args.quickReplies?.filter((q) => 'type' in q);
      return api.sendContent(contactId, { text: args.text, ...(buttons?.length ? { quickReplies: buttons } : {}) }, args.messageTag);
    },
    messenger: (api, contactId, args) => {
      const quickReplies = args.quickReplies?.filter((q) => 'content_type' in q);
      return api.sendMessage(contactId, { text: args.text, ...(quickReplies?.length ? { quickReplies } : {}) }, { ...(args.lastInboundAt ? { lastInboundAt: args.lastInboundAt } : {}), ...(args.messageTag ? { messageTag: args.messageTag } : {}) });
    },
  },
});

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
    const allowed = mediaHosts.some((h) => (h.startsWith('*.') ? host.endsWith(h.slice(1)) && host.length > h.length - 1 : host === h));
    if (!allowed) return `media host "${host}" is not in the tenant's media allow-list`;
  }
  return null;
}

/** URLs under the keys ManyChat content uses for media (`url`, `image_url`, `media`…), at any depth. */
function mediaUrls(value: unknown, key = ''): string[] {
  if (typeof value === 'string') return /^(?:url|image_url|video_url|audio_url|file_url|media|media_url|src)$/i.test(key) ? [value] : [];
  if (Array.isArray(value)) return value.flatMap((v) => mediaUrls(v, key));
  if (value && typeof value === 'object') return Object.entries(value).flatMap(([k, v]) => mediaUrls(v, k));
  return [];
}
