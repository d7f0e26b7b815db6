import type { InboundMessage } from '../../../core/inbound-message.js';
import { localeOf } from '../../../core/runtime-words.js';
import type { ContactChannel } from './contact-channel.js';
import type { ManyChatWebhook } from './inbound-schema.js';
import { manyChatMessageKey } from './message-key.js';
import { attachmentsOfInput } from './no-text-reply.js';

/** The contact's language as ManyChat gives it: the first of `language` and `locale` the runtime speaks. */
export function contactLanguage(webhook: ManyChatWebhook): string | undefined {
  const { language, locale } = webhook.contact;
  return [language, locale].find((l) => localeOf(l)) ?? language ?? locale ?? undefined;
}

export type ManyChatMessage =
  | { kind: 'message'; text: string; messageKey: string; attachments: NonNullable<InboundMessage['attachments']> }
  /** A photo, sticker, story reply or voice note ManyChat sent no text or URL for. */
  | { kind: 'no-text' };

/**
 * What a (non-confirmation) request says: a pressed suggestion's caption (its button's nonce makes
 * every press of it, and ManyChat's retries, one delivery), or the contact's words or attachments.
 */
export async function manyChatMessageOf(
  webhook: ManyChatWebhook,
  suggestion: { text: string; nonce: string } | null,
  cc: ContactChannel,
): Promise<ManyChatMessage> {
  if (suggestion)
    return { kind: 'message', text: suggestion.text, messageKey: `qr:${suggestion.nonce}`, attachments: [] };
  let text = webhook.text ?? webhook.contact.last_input_text ?? '';
  const attachments = webhook.attachments ?? attachmentsOfInput(text);
  // An attachment ManyChat passed as a bare media URL is described to the model, not read as words.
  if (!webhook.attachments && attachments.length) text = '';
  if (!text.trim() && !attachments.length) return { kind: 'no-text' };
  const messageKey = await manyChatMessageKey(
    webhook,
    text || attachments.map((a) => a.url ?? a.type).join('\n'),
    new Date(),
    cc,
  );
  return { kind: 'message', text, messageKey, attachments };
}

/** ManyChat's Full Contact Data as the turn's one inbound vocabulary. */
export function inboundOf(
  tenantId: string,
  webhook: ManyChatWebhook,
  text: string,
  messageKey: string,
  cc: ContactChannel,
  attachments: NonNullable<InboundMessage['attachments']>,
): InboundMessage {
  const contact = webhook.contact;
  const name = contact.name ?? ([contact.first_name, contact.last_name].filter(Boolean).join(' ') || undefined);
  const language = contactLanguage(webhook);
  return {
    tenantId,
    channel: 'manychat',
    surface: cc.channel,
    contactId: contact.id,
    messageKey,
    text,
    ...(attachments.length ? { attachments } : {}),
    // The channel's own last-interaction time: the delivery key and the messaging window use it.
    contact: {
      ...(name ? { name } : {}),
      fields: contact.custom_fields ?? {},
      ...(cc.lastInteraction ? { lastInteraction: cc.lastInteraction } : {}),
      ...(language ? { language } : {}),
    },
    receivedAt: new Date().toISOString(),
  };
}
