import type { ManyChatChannel } from '../../core/manychat-channels.js';
import type { PinnedTerms } from '../../core/pinned-terms.js';

/**
 * Where a pinned row's later messages go: the channel the contact was asked on and their last
 * message time there (an outbox entry's `surface` and `lastInboundAt`). `pressedAt`: the contact
 * just pressed a button of the row, a message of theirs on that channel, so the window runs from it.
 *
 * A ManyChat row written before rows remembered the channel has none: its messages go in the
 * Facebook format (what every row got before), and that is logged, since an Instagram, WhatsApp or
 * Telegram contact's ManyChat refuses them.
 */
export function pinnedTarget(
  terms: PinnedTerms,
  pressedAt?: Date,
): { surface?: ManyChatChannel; lastInboundAt?: string } {
  if (terms.channel !== 'manychat') return {};
  if (!terms.surface)
    console.warn(
      `pinned row ${terms.id} (tenant ${terms.tenantId}) was written before pinned rows remembered the contact's ManyChat channel: its messages go in the Facebook format`,
    );
  const lastInboundAt = pressedAt?.toISOString() ?? terms.lastInboundAt;
  return {
    ...(terms.surface ? { surface: terms.surface } : {}),
    ...(lastInboundAt ? { lastInboundAt } : {}),
  };
}
