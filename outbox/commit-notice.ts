import type { OutboxEntry } from '../core/outbox-entry.js';
import { ConditionalWrites } from '../core/storage/conditional-writes.js';
import { retainedTtl, TTL } from '../core/storage/keys.js';
import { outboxKeys, queueOutboxEntry } from '../core/storage/outbox-store.js';
import type { RedisSession } from '../core/storage/redis-session.js';
import { outboxDueAt, queueDue } from '../core/storage/due-index.js';

/**
 * Writes a system entry that belongs to no turn (a message telling the contact what became of a
 * button they pressed) once: written only if no entry of that id exists, so a retried webhook
 * cannot queue the same notice twice. Returns whether it was written (and should be published).
 */
export async function commitNoticeEntry(session: RedisSession, entry: OutboxEntry): Promise<boolean> {
  // The entry's own key is the guard: a notice is written once.
  const w = new ConditionalWrites(outboxKeys(entry.tenantId).entry(entry.turnId));
  queueOutboxEntry(
    w,
    entry.tenantId,
    entry.turnId,
    entry,
    retainedTtl(TTL.outboxSeconds, entry.retentionDays),
    Date.parse(entry.createdAt),
  );
  queueDue(w, entry.tenantId, outboxDueAt(Date.parse(entry.createdAt)));
  return Number(await session.one((r) => r.eval(w.script, w.keys, w.argv))) === 1;
}
