import type { ManyChatWebhook } from './inbound-schema.js';

/**
 * The delivery key that makes retries and concurrent duplicates join one turn: the template's
 * own key if it sends one; else the contact id with its last_interaction time (unique per
 * message the contact sends); else a hash of contact + text + minute.
 */
export async function manyChatMessageKey(webhook: ManyChatWebhook, text: string, receivedAt: Date): Promise<string> {
  if (webhook.message_key) return `k:${webhook.message_key}`;
  if (webhook.contact.last_interaction) return `li:${webhook.contact.id}:${webhook.contact.last_interaction}`;
  const minute = Math.floor(receivedAt.getTime() / 60_000);
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(`${webhook.contact.id}\n${text}\n${minute}`));
  return `h:${[...new Uint8Array(digest)].slice(0, 16).map((b) => b.toString(16).padStart(2, '0')).join('')}`;
}
