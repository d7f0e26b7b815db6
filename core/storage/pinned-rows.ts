import type { PinnedTerms } from '../pinned-terms.js';
import type { ConditionalWrites } from './conditional-writes.js';
import { TTL, tenantKeys } from './keys.js';

/** Queues the row's creation inside the turn's commit: terms and status, both SET NX. */
export function queuePinnedRow(w: ConditionalWrites, terms: PinnedTerms): void {
  const keys = tenantKeys(terms.tenantId);
  w.call('SET', keys.pinnedTerms(terms.id), JSON.stringify(terms), 'NX', 'EX', TTL.pinnedSeconds);
  w.call('SET', keys.pinnedStatus(terms.id), 'pending', 'NX', 'EX', TTL.pinnedSeconds);
  if (terms.kind === 'approval') w.call('ZADD', keys.approvalQueue, Date.parse(terms.expiresAt), terms.id);
}
