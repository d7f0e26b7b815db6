import { sha256Hex } from '../../../core/security/digest.js';
import { FALLBACK_KEY_PREFIX } from '../../../core/storage/keys.js';
import type { ManyChatWebhook } from './inbound-schema.js';
import type { ContactChannel } from './contact-channel.js';

export { claimTtlSeconds, FALLBACK_KEY_WINDOW_SECONDS } from '../../../core/storage/keys.js';

/**
 * The delivery key that makes retries and concurrent duplicates join one turn: the template's
 * own key if it sends one; else the contact id with the last-interaction time of the channel the
 * contact writes on (on Instagram `ig_last_interaction`, which moves with every Instagram message
 * while `last_interaction` may not); else a hash of contact + text, whose claim holds for a short
 * window (core/storage/keys.ts `claimTtlSeconds`) instead of the wall-clock minute (a retry across a
 * minute boundary was a second turn).
 *
 * A duplicate is the same message: the first two carry the message's digest too, so a repeated
 * key with other words (a template key that is not unique, a `last_interaction` ManyChat did not
 * move) is a new turn, never folded into the earlier one whose old reply the contact would get.
 */
export async function manyChatMessageKey(
  webhook: ManyChatWebhook,
  text: string,
  _receivedAt: Date,
  channel?: ContactChannel,
): Promise<string> {
  if (webhook.message_key) return `k:${webhook.message_key}:${await digest16(text)}`;
  const lastInteraction = channel ? channel.lastInteraction : webhook.contact.last_interaction;
  if (lastInteraction) {
    const scope = channel && channel.channel !== 'facebook' ? `${channel.channel}:` : '';
    return `li:${scope}${webhook.contact.id}:${lastInteraction}:${await digest16(text)}`;
  }
  return `${FALLBACK_KEY_PREFIX}${await digest16(`${webhook.contact.id}\n${text}`)}`;
}

/** The first 16 bytes of the SHA-256, hex (the table look-up of core/security/digest.ts, not a format a byte). */
async function digest16(value: string): Promise<string> {
  return (await sha256Hex(value)).slice(0, 32);
}
