import { MANYCHAT_CHANNEL_LIMITS, type ManyChatChannel } from '../../../core/manychat-channels.js';
import type { ManyChatWebhook } from './inbound-schema.js';

export interface ContactChannel {
  channel: ManyChatChannel;
  /** `template`: the request template named it; `fields`: told from Full Contact Data; `unknown`: neither, answered as Facebook. */
  from: 'template' | 'fields' | 'unknown';
  /** The contact's last message time on that channel (its own field), when ManyChat sent one. */
  lastInteraction?: string;
}

const present = (v: unknown) => v !== undefined && v !== null && v !== '' && v !== false;

/**
 * The channel a ManyChat delivery comes from. The request template's `"channel"` wins (a ManyChat
 * flow runs on one channel, so the template of an Instagram flow can say "instagram"); a button
 * press carries the channel its buttons were rendered for. Otherwise Full Contact Data tells it:
 * `ig_id` / `ig_username` for Instagram, `whatsapp_phone` for WhatsApp (ManyChat's Subscriber
 * schema; Telegram has no documented field, so a Telegram flow must name its channel). A contact
 * with both is placed on the channel whose own last-interaction time is newest (Instagram's
 * `ig_last_interaction` against `last_interaction`); a tie, or a body with none of these fields at
 * all (an old template), cannot be told and is answered as Facebook, and the route logs it.
 * Full Contact Data cannot tell a Facebook message of a contact who also wrote on Instagram: a
 * Facebook flow whose contacts use both should name its channel too.
 */
export function contactChannel(webhook: Pick<ManyChatWebhook, 'contact' | 'channel'>): ContactChannel {
  const c = webhook.contact as Record<string, unknown>;
  const at = (channel: ManyChatChannel) => {
    const v =
      c[MANYCHAT_CHANNEL_LIMITS[channel].lastInteractionField] ??
      (channel === 'instagram' ? undefined : c.last_interaction);
    return typeof v === 'string' && v ? v : undefined;
  };
  const withTime = (channel: ManyChatChannel, from: ContactChannel['from']): ContactChannel => {
    const lastInteraction =
      at(channel) ?? (typeof c.last_interaction === 'string' && c.last_interaction ? c.last_interaction : undefined);
    return { channel, from, ...(lastInteraction ? { lastInteraction } : {}) };
  };
  if (webhook.channel) return withTime(webhook.channel, 'template');
  const candidates: ManyChatChannel[] = [];
  if (present(c.ig_id) || present(c.ig_username)) candidates.push('instagram');
  if (present(c.whatsapp_phone)) candidates.push('whatsapp');
  const knowsFields = ['ig_id', 'ig_username', 'whatsapp_phone', 'ig_last_interaction'].some((k) => k in c);
  if (candidates.length === 0) return withTime('facebook', knowsFields ? 'fields' : 'unknown');
  if (candidates.length === 1) return withTime(candidates[0]!, 'fields');
  // Several: the newest own last-interaction wins; a tie or no times cannot be told.
  const timed = candidates
    .map((ch) => ({ ch, t: Date.parse(at(ch) ?? '') }))
    .filter((x) => !Number.isNaN(x.t))
    .sort((a, b) => b.t - a.t);
  if (timed.length && (timed.length === 1 || timed[0]!.t > timed[1]!.t)) return withTime(timed[0]!.ch, 'fields');
  return withTime('facebook', 'unknown');
}
