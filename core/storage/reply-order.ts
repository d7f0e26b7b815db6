import type { ConditionalWrites } from './conditional-writes.js';
import { TTL, tenantKeys } from './keys.js';
import type { RedisSession } from './redis-session.js';

/**
 * The reply-order store: the owner of each contact's reply-order set (`replyOrder(contact)`:
 * member = a message's place, score = when the contact sent it, ms) and of the parsing of its
 * replies. What the order means — who waits, for how long — is outbox/reply-order.ts's. The
 * multi-structure scripts that let a message go in the same step as their own writes (the commit,
 * a delivery's close, the claim store's release of an unfinished turn) take the key from
 * `replyOrderKeys` or queue through `queueLeaveReplyOrder`.
 */

/** The reply-order key a multi-structure script needs for a tenant's contact. */
export function replyOrderKeys(tenantId: string): { contact: (contactId: string) => string } {
  return { contact: tenantKeys(tenantId).replyOrder };
}

/** Joins the contact's set (idempotent: the same member again only rescores it), its TTL refreshed. One round trip. */
export async function joinReplyOrder(
  session: RedisSession,
  tenantId: string,
  contactId: string,
  member: string,
  atMs: number,
): Promise<void> {
  const key = replyOrderKeys(tenantId).contact(contactId);
  await session.pipeline((p) => {
    p.zadd(key, { score: atMs, member });
    p.expire(key, TTL.replyOrderSeconds);
  });
}

/** The contact's first member scored before `atMs` (none, or one). One round trip. */
export async function firstEarlierMember(
  session: RedisSession,
  tenantId: string,
  contactId: string,
  atMs: number,
): Promise<string[]> {
  const key = replyOrderKeys(tenantId).contact(contactId);
  const earlier = await session.one((r) => r.zrange(key, '-inf', `(${atMs}`, { byScore: true, offset: 0, count: 1 }));
  return (earlier as unknown[]).filter((m): m is string => typeof m === 'string');
}

/** Queues a message's leaving the contact's set into a caller's atomic script. */
export function queueLeaveReplyOrder(w: ConditionalWrites, tenantId: string, contactId: string, member: string): void {
  w.call('ZREM', replyOrderKeys(tenantId).contact(contactId), member);
}
