import { z } from 'zod';

/**
 * ManyChat's v2 response, per channel, written from ManyChat's documentation and nothing of src/:
 * an oracle the product's reply shapes are checked against. Sources (docs/protocols.md §
 * "ManyChat on Instagram, WhatsApp and Telegram"): https://manychat.github.io/dynamic_block_docs/
 * (Facebook) and https://manychat.github.io/dynamic_block_docs/channels/ (Instagram, WhatsApp,
 * Telegram), the Help Center's "Response Reference for Instagram, WhatsApp and Telegram Automation".
 *
 * - `content.type`: "instagram" | "whatsapp" | "telegram"; absent on Facebook.
 * - at most 10 messages, 11 quick replies, 5 actions; quick replies "not supported for WhatsApp and Telegram".
 * - text messages carry url / flow / node buttons (Facebook also call, dynamic_block_callback);
 *   we send `dynamic_block_callback` on every channel (the channel pages are silent on it; see the doc).
 * - Instagram and WhatsApp: no video, audio or file; WhatsApp and Telegram: no gallery (cards);
 *   images: Instagram and Telegram.
 * - text lengths (platform limits; ManyChat is silent): Messenger 2000, WhatsApp and Telegram 4096 characters;
 *   Instagram "less than 1000 characters" and "UTF-8 and … 1000 bytes or less" (Meta's Instagram send-message page,
 *   https://developers.facebook.com/docs/messenger-platform/instagram/features/send-message, both wordings seen).
 * - at most 3 buttons on a message (WhatsApp reply buttons; Messenger button template).
 * - WhatsApp: a text with reply buttons is an interactive message, body at most 1024 characters (WhatsApp
 *   Business Platform limits, secondary sources in docs/protocols.md; ManyChat does not document its mapping).
 */
export type DocChannel = 'facebook' | 'instagram' | 'whatsapp' | 'telegram';

const TEXT_LIMIT: Record<DocChannel, number> = { facebook: 2000, instagram: 1000, whatsapp: 4096, telegram: 4096 };

const CallbackButton = z.strictObject({
  type: z.literal('dynamic_block_callback'),
  caption: z.string().min(1).max(20),
  url: z.url({ protocol: /^https?$/ }),
  method: z.literal('post'),
  headers: z.record(z.string(), z.string()).optional(),
  payload: z.record(z.string(), z.unknown()),
});

export function v2ContentSchema(channel: DocChannel) {
  const text = z.strictObject({
    type: z.literal('text'),
    text:
      channel === 'instagram'
        ? z
            .string()
            .min(1)
            .max(999)
            .refine((t) => new TextEncoder().encode(t).length <= 1000, 'Instagram text is at most 1000 UTF-8 bytes')
        : z.string().min(1).max(TEXT_LIMIT[channel]),
    buttons: z.array(CallbackButton).max(3).optional(),
  });
  const message =
    channel === 'whatsapp'
      ? text.refine(
          (m) => !m.buttons?.length || m.text.length <= 1024,
          'WhatsApp: a text carrying buttons is at most 1024 characters',
        )
      : text;
  const base = {
    messages: z.array(message).max(10),
    actions: z.array(z.unknown()).max(5).optional(),
  };
  const withType = channel === 'facebook' ? { type: z.undefined().optional() } : { type: z.literal(channel) };
  const quick =
    channel === 'facebook' || channel === 'instagram'
      ? { quick_replies: z.array(CallbackButton).max(11).optional() }
      : { quick_replies: z.undefined().optional() };
  return z.strictObject({ ...base, ...withType, ...quick });
}

/** The webhook's answer (Dynamic Block). */
export function dynamicBlockSchema(channel: DocChannel) {
  return z.strictObject({ version: z.literal('v2'), content: v2ContentSchema(channel) });
}

/** The outbox's `/fb/sending/sendContent` body (ManyChat's Swagger: subscriber_id, data, optional message_tag). */
export function sendContentBodySchema(channel: DocChannel) {
  return z.strictObject({
    subscriber_id: z.union([z.number().int().positive(), z.string().regex(/^\d+$/)]),
    data: dynamicBlockSchema(channel),
    // Message tags are Meta's (Messenger); the other channels take none.
    message_tag: channel === 'facebook' ? z.string().min(1).optional() : z.undefined().optional(),
  });
}
