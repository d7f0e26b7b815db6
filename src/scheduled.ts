import { dueApprovalsByTenant, expireDueApprovals } from './approvals/decide-approval.js';
import type { Services } from './http/app-context.js';
import { dueTenants, rescheduleDue, seedDueIndex } from '../core/storage/due-index.js';
import { DEFAULT_SWEEP_AFTER_MS, sweepOutbox } from '../outbox/sweeper.js';
import { finishStrandedTurns } from '../outbox/stranded-turns.js';
import { isTenantId } from '../core/tenant/tenant-id.js';
import { sessionSecrets } from './env.js';

/**
 * The cron's work: publish stuck outbox entries again, finish stranded turns (a claim whose turn
 * never committed), and expire approvals whose hour has passed (their contacts are told nothing
 * was changed). Counts and ids only in the log.
 */
export async function runScheduledWork(services: Services, now = new Date()): Promise<void> {
  const session = services.redis();
  const publisher = services.publisher();
  // Only the tenants the due-work index names: an idle minute is one round trip (two commands),
  // however many tenants there are. The first run after the index existed seeds it once.
  let due = await dueTenants(session, now, DUE_TENANTS_PER_RUN);
  if (!due.seeded) {
    await seedDueIndex(session, isTenantId);
    due = await dueTenants(session, now, DUE_TENANTS_PER_RUN);
  }
  const tenantIds = due.tenantIds.filter(isTenantId).sort();
  if (!tenantIds.length) return;
  try {
    await sweepDueTenants(services, session, publisher, tenantIds, now);
  } finally {
    // Each worked tenant's next due time, from its queues (or off the index when nothing waits).
    await rescheduleDue(session, tenantIds);
  }
}

/**
 * Tenants worked per cron run, the earliest due first; the rest stay due for the next minute.
 * Bounds one invocation's subrequests (each tenant costs a few pipelined round trips at most).
 */
export const DUE_TENANTS_PER_RUN = 500;

async function sweepDueTenants(
  services: Services,
  session: ReturnType<Services['redis']>,
  publisher: ReturnType<Services['publisher']>,
  tenantIds: string[],
  now: Date,
): Promise<void> {
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
        { session, publisher, pinSecret: sessionSecrets(services.env), now },
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
