import type { OutboxEntry } from '../core/outbox-entry.js';
import type { RedisSession } from '../core/storage/redis-session.js';
import { firstEarlierMember, joinReplyOrder } from '../core/storage/reply-order.js';

/**
 * Per-contact reply order (Messenger): a later message's reply is never delivered before an
 * earlier one's. Each message whose turn was claimed joins its contact's set (scored by when the
 * contact sent it) before its turn runs; the turn's outbox entry carries its place
 * (`entry.sequence`) and leaves the set when the entry is settled — or at the commit, when the
 * turn delivers nothing. A delivery whose contact still has an earlier message in the set waits
 * (answers `retry`; QStash comes back, the sweeper after it). The set itself is the reply-order
 * store's (core/storage/reply-order.ts).
 *
 * Bounded: an entry older than REPLY_ORDER_WAIT_MS is delivered whatever is still in the set, so
 * a turn that died and was never finished cannot hold a contact's replies for ever. The
 * guarantee covers messages whose webhook arrived before the later reply is delivered (Meta may
 * deliver webhooks out of order; a message it has not sent yet cannot be waited for).
 */
export const REPLY_ORDER_WAIT_MS = 120_000;
export const REPLY_ORDER_RETRY_SECONDS = 1;

/** Joins the contact's reply order (idempotent: a retried delivery is the same member). */
export async function enterReplyOrder(
  session: RedisSession,
  tenantId: string,
  contactId: string,
  sequence: NonNullable<OutboxEntry['sequence']>,
): Promise<void> {
  await joinReplyOrder(session, tenantId, contactId, sequence.member, sequence.at);
}

/** Whether an earlier message of the entry's contact still waits for its reply (one round trip; none for an unordered entry). */
export async function waitsForEarlierReply(session: RedisSession, entry: OutboxEntry, now: Date): Promise<boolean> {
  const sequence = entry.sequence;
  if (!sequence) return false;
  if (now.getTime() - Date.parse(entry.createdAt) > REPLY_ORDER_WAIT_MS) return false;
  const earlier = await firstEarlierMember(session, entry.tenantId, entry.contactId, sequence.at);
  return earlier.some((m) => m !== sequence.member);
}
