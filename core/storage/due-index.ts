import { claimKeys } from './claims.js';
import type { ConditionalWrites } from './conditional-writes.js';
import { DUE_INDEX_KEY, DUE_INDEX_SEEDED_KEY, TENANT_INDEX_KEY } from './keys.js';
import type { RedisSession } from './redis-session.js';
import { outboxKeys } from './outbox-store.js';
import { pinnedKeys } from './pinned-rows.js';

/**
 * The index of due work: which tenants have something the cron must look at, and from when.
 * Without it every cron minute read every tenant's three queues (outbox entries to publish again,
 * open claims that may be stranded, approvals to expire): 1 + 3 commands per tenant per minute,
 * idle or not. With it an idle minute reads one sorted set, whatever the number of tenants.
 *
 * One sorted set, member = tenant id, score = the earliest time any of its queues holds work that
 * is due (an outbox entry: its score + `OUTBOX_SWEEP_AFTER_MS`; an open claim: its score; an
 * approval: its expiry). Every write that adds to one of the queues also lowers the tenant's score
 * (`ZADD … LT`), in the same atomic script or MULTI. After the cron has worked a due tenant,
 * `rescheduleDue` recomputes its score from the queues themselves, in one script, so a write that
 * lands meanwhile is either seen by it or lowers the score after it: work is never left unindexed.
 * The index's keys (`DUE_INDEX_KEY`, `DUE_INDEX_SEEDED_KEY`) live in core/storage/keys.ts, so the
 * stores whose scripts lower a score (the claim store, ...) need not import this module, and this
 * module can take their queues' keys from them (the open claims: `claimKeys`).
 */

/**
 * An outbox entry older than this and not yet done is published again by the sweeper. Above
 * QStash's first retry delays (12 s, 2.5 min). Here, not in the outbox, because the writers of the
 * index in every layer compute an entry's due time from it.
 */
export const OUTBOX_SWEEP_AFTER_MS = 5 * 60_000;

/** When an outbox entry written at `scoreMs` is due to be swept. */
export function outboxDueAt(scoreMs: number): number {
  return scoreMs + OUTBOX_SWEEP_AFTER_MS;
}

/** Lowers the tenant's due time to `dueAtMs` (adds it when absent), in the same atomic batch as the queued work. */
export function queueDue(w: ConditionalWrites, tenantId: string, dueAtMs: number): void {
  w.call('ZADD', DUE_INDEX_KEY, 'LT', Math.floor(dueAtMs), tenantId);
}

/** The tenants whose work is due at `now` (at most `limit`), and whether the index was ever seeded. */
export async function dueTenants(
  session: RedisSession,
  now: Date,
  limit: number,
): Promise<{ seeded: boolean; tenantIds: string[] }> {
  const [due, seeded] = await session.pipeline((p) => {
    p.zrange(DUE_INDEX_KEY, '-inf', now.getTime(), { byScore: true, offset: 0, count: limit });
    p.exists(DUE_INDEX_SEEDED_KEY);
  });
  const tenantIds = (Array.isArray(due) ? (due as unknown[]) : []).filter((t): t is string => typeof t === 'string');
  return { seeded: Number(seeded) === 1, tenantIds };
}

/**
 * Recomputes each tenant's due time from its queues (the first of each) and stores it, or takes
 * the tenant off the index when nothing waits. One script per tenant, one round trip for all.
 */
const RESCHEDULE_SCRIPT = `
local due = nil
local function earliest(key, offset)
  local first = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
  if first[2] then
    local at = tonumber(first[2]) + offset
    if not due or at < due then due = at end
  end
end
earliest(KEYS[1], tonumber(ARGV[2]))
earliest(KEYS[2], 0)
earliest(KEYS[3], 0)
if due then
  redis.call('ZADD', KEYS[4], due, ARGV[1])
else
  redis.call('ZREM', KEYS[4], ARGV[1])
end
return due and tostring(due) or ''
`;

export async function rescheduleDue(session: RedisSession, tenantIds: readonly string[]): Promise<void> {
  if (!tenantIds.length) return;
  await session.pipeline((p) => {
    for (const tenantId of tenantIds) {
      p.eval(
        RESCHEDULE_SCRIPT,
        [
          outboxKeys(tenantId).pending,
          claimKeys(tenantId).openClaims,
          pinnedKeys(tenantId).approvalQueue,
          DUE_INDEX_KEY,
        ],
        [tenantId, String(OUTBOX_SWEEP_AFTER_MS)],
      );
    }
  });
}

/**
 * The first cron after the index was introduced: every tenant's due time from its queues, then the
 * marker. Costs what one cron minute used to; never again after.
 */
export async function seedDueIndex(session: RedisSession, validTenant: (id: string) => boolean): Promise<void> {
  const tenantIds = (await session.one((r) => r.smembers(TENANT_INDEX_KEY))).filter(
    (t): t is string => typeof t === 'string' && validTenant(t),
  );
  for (let i = 0; i < tenantIds.length; i += 500) await rescheduleDue(session, tenantIds.slice(i, i + 500));
  await session.one((r) => r.set(DUE_INDEX_SEEDED_KEY, '1'));
}
