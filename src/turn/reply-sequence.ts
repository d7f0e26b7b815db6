import type { InboundMessage } from '../../core/inbound-message.js';
import type { OutboxEntry } from '../../core/outbox-entry.js';
import { deliveryKeyDigest } from '../../core/storage/keys.js';
import { channelOf } from '../channels/index.js';

/**
 * Where a message stands in its contact's reply order, for channels that deliver replies in
 * message order: named by the delivery's digest (contact + message key, so a retried delivery
 * is the same member), placed by the time the contact sent it. Derived from the inbound alone,
 * so a rerun of the turn (finish-turn job, sweeper) finds the same place.
 */
export async function replySequenceOf(inbound: InboundMessage): Promise<OutboxEntry['sequence'] | undefined> {
  if (!channelOf(inbound.channel).orderedReplies) return undefined;
  const sentAt = Date.parse(inbound.contact.lastInteraction ?? inbound.receivedAt);
  if (Number.isNaN(sentAt)) return undefined;
  return { member: await deliveryKeyDigest(inbound.contactId, inbound.messageKey), at: sentAt };
}
