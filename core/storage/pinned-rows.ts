import type { PinnedTerms } from '../pinned-terms.js';
import type { ConditionalWrites } from './conditional-writes.js';
import { retainedTtl, TTL, tenantKeys } from './keys.js';
import { queueDue } from './due-index.js';

/**
 * Queues the row's creation inside the turn's commit: terms and status, both SET NX, and for each
 * call the contact's pending-call index (SET NX, until the row expires): the first row for a call
 * owns it, so a repeat of the call — a later turn, or a concurrent one — finds it, and a second
 * row that slipped in anyway cannot perform it (see the decision script).
 */
export function queuePinnedRow(
  w: ConditionalWrites,
  terms: PinnedTerms,
  now = Date.now(),
  retentionDays?: number,
): void {
  const keys = tenantKeys(terms.tenantId);
  const ttl = retainedTtl(TTL.pinnedSeconds, retentionDays);
  // The contact's rows, so a deletion request reaches every one of them.
  w.call('SADD', keys.contactRows(terms.contactId), terms.id);
  w.call('EXPIRE', keys.contactRows(terms.contactId), ttl);
  const ttlMs = Math.max(1000, Date.parse(terms.expiresAt) - now);
  for (const digest of terms.callDigests ?? [])
    w.call('SET', keys.pendingCall(terms.contactId, digest), terms.id, 'NX', 'PX', ttlMs);
  w.call('SET', keys.pinnedTerms(terms.id), JSON.stringify(terms), 'NX', 'EX', ttl);
  w.call('SET', keys.pinnedStatus(terms.id), 'pending', 'NX', 'EX', ttl);
  if (terms.kind === 'approval') {
    w.call('ZADD', keys.approvalQueue, Date.parse(terms.expiresAt), terms.id);
    queueDue(w, terms.tenantId, Date.parse(terms.expiresAt));
  }
}
