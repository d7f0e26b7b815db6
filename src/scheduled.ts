import { dueApprovalsByTenant, expireDueApprovals } from './approvals/decide-approval.js';
import type { Services } from './http/app-context.js';
import { TENANT_INDEX_KEY } from '../core/storage/keys.js';
import { DEFAULT_SWEEP_AFTER_MS, sweepOutbox } from '../outbox/sweeper.js';
import { finishStrandedTurns } from '../outbox/stranded-turns.js';
import { isTenantId } from '../core/tenant/tenant-id.js';

/**
 * The cron's work: publish stuck outbox entries again, finish stranded turns (a claim whose turn
 * never committed), and expire approvals whose hour has passed (their contacts are told nothing
 * was changed). Counts and ids only in the log.
 */
export async function runScheduledWork(services: Services, now = new Date()): Promise<void> {
  const session = services.redis();
  const publisher = services.publisher();
  // Read once for the three sweeps; each then reads every tenant's due work in one round trip.
  const tenantIds = (await session.one((r) => r.smembers(TENANT_INDEX_KEY)))
    .filter((t): t is string => typeof t === 'string' && isTenantId(t))
    .sort();
  const result = await sweepOutbox({ session, publisher, olderThanMs: DEFAULT_SWEEP_AFTER_MS, now, tenantIds });
  console.log(
    `outbox sweep: ${result.tenants} tenants, ${result.stale} stale, ${result.published} published, ${result.failed} failed`,
  );
  for (const e of result.errors) console.warn(`outbox sweep: ${e}`);

  const stranded = await finishStrandedTurns({ session, turnJobs: services.turnJobs(), tenantIds, now });
  if (stranded.found)
    console.log(
      `stranded turns: ${stranded.found} due, ${stranded.published} finish jobs published, ${stranded.dropped} dropped, ${stranded.failed} failed`,
    );
  for (const e of stranded.errors) console.warn(`stranded turns: ${e}`);
  let expired = 0;
  for (const [tenantId, dueIds] of await dueApprovalsByTenant(session, tenantIds, now)) {
    try {
      expired += await expireDueApprovals(
        { session, publisher, pinSecret: services.env.SESSION_SECRET, now },
        tenantId,
        dueIds,
      );
    } catch (err) {
      console.warn(
        `approval expiry for tenant ${tenantId.slice(0, 60)} failed: ${err instanceof Error ? err.message : String(err)}`,
      );
    }
  }
  if (expired) console.log(`approvals expired: ${expired}`);
}
