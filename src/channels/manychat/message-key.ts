import type { ManyChatWebhook } from './inbound-schema.js';
import type { ContactChannel } from './contact-channel.js';

/**
 * The delivery key that makes retries and concurrent duplicates join one turn: the template's
 * own key if it sends one; else the contact id with the last-interaction time of the channel the
 * contact writes on (unique per message the contact sends: on Instagram `ig_last_interaction`,
 * which moves with every Instagram message while `last_interaction` may not); else a hash of
 * contact + text + minute. Facebook keeps its historical form (`li:<id>:<time>`).
 */
export async function manyChatMessageKey(webhook: ManyChatWebhook, text: string, receivedAt: Date, channel?: ContactChannel): Promise<string> {
  if (webhook.message_key) return `k:${webhook.message_key}`;
  const lastInteraction = channel ? channel.lastInteraction : webhook.contact.last_interaction;
  if (lastInteraction) return channel && channel.channel !== 'facebook' ? `li:${channel.channel}:${webhook.contact.id}:${lastInteraction}` : `li:${webhook.contact.id}:${lastInteraction}`;
  const minute = Math.floor(receivedAt.getTime() / 60_000);
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(`${webhook.contact.id}\n${text}\n${minute}`));
  return `h:${[...new Uint8Array(digest)].slice(0, 16).map((b) => b.toString(16).padStart(2, '0')).join('')}`;
}
