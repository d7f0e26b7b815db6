import type { RedisSession } from '../core/storage/redis-session.js';
import { TENANT_INDEX_KEY } from '../core/storage/keys.js';
import { outboxKeys, stalePendingEntries, touchPendingEntries } from '../core/storage/outbox-store.js';
import type { OutboxPublisher } from './publisher.js';
import { OUTBOX_SWEEP_AFTER_MS } from '../core/storage/due-index.js';

/**
 * The outbox sweeper (cron): publishes again every outbox entry that has sat in a tenant's
 * `outboxPending` set longer than `olderThanMs`, so a committed turn whose first publish failed
 * (or whose QStash message ran out of retries) is still delivered. Each sweep publishes with its
 * own deduplication label, so QStash's deduplication window (10 minutes per its docs, 90 days per
 * the SDK's JSDoc) cannot swallow it; a second delivery is safe: the lease and the ledger make it
 * perform nothing twice.
 *
 * A published entry's score is moved to "now" (ZADD XX: only if still pending), so it is swept
 * again only after another `olderThanMs`, not on every cron tick.
 */

/** Older than this and not yet done: published again (the due-work index computes an entry's due time from it). */
export const DEFAULT_SWEEP_AFTER_MS = OUTBOX_SWEEP_AFTER_MS;
/** Per tenant per sweep, to bound one cron invocation. */
export const SWEEP_BATCH = 100;

export interface SweepInput {
  session: RedisSession;
  publisher: OutboxPublisher;
  olderThanMs?: number;
  now?: Date;
  batch?: number;
  /** Only these tenants (a tenant's own "sweep now", tests on a shared Redis). Default: every tenant in the index. */
  tenantIds?: readonly string[];
}

export interface SweepResult {
  tenants: number;
  /** Entries found older than the cut-off. */
  stale: number;
  published: number;
  failed: number;
  errors: string[];
}

export async function sweepOutbox(input: SweepInput): Promise<SweepResult> {
  const { session, publisher } = input;
  const now = input.now ?? new Date();
  const cutoff = now.getTime() - (input.olderThanMs ?? DEFAULT_SWEEP_AFTER_MS);
  const batch = input.batch ?? SWEEP_BATCH;

  const tenantIds = input.tenantIds
    ? [...input.tenantIds]
    : (await session.one((r) => r.smembers(TENANT_INDEX_KEY))).filter((t): t is string => typeof t === 'string').sort();
  const result: SweepResult = { tenants: tenantIds.length, stale: 0, published: 0, failed: 0, errors: [] };
  if (!tenantIds.length) return result;

  const valid = tenantIds.flatMap((tenantId) => {
    try {
      // Only to check the id can be part of a key (an invalid one throws).
      outboxKeys(tenantId);
      return [tenantId];
    } catch {
      result.errors.push(`tenant id "${tenantId.slice(0, 60)}" cannot be part of a key; skipped`);
      return [];
    }
  });
  // One round trip for every tenant's stale entries.
  const stale = await stalePendingEntries(session, valid, cutoff, batch);

  const touched: { tenantId: string; entryId: string }[] = [];
  for (const [i, tenantId] of valid.entries()) {
    for (const turnId of stale[i]!) {
      result.stale++;
      try {
        await publisher.publish({ tenantId, turnId }, { attempt: `sweep${now.getTime()}` });
        result.published++;
        touched.push({ tenantId, entryId: turnId });
      } catch (err) {
        result.failed++;
        result.errors.push(`${tenantId}/${turnId}: ${err instanceof Error ? err.message : String(err)}`);
      }
    }
  }
  await touchPendingEntries(session, touched, now.getTime());
  return result;
}
