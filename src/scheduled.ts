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
  // Batch after batch until nothing due is left (or the run's bound): a minute with more due
  // tenants than one batch (a burst of turns, a backlog after an outage) is drained, not carried
  // over with the earliest first, which would starve a tenant due later but urgently (an approval's
  // hour). A tenant worked in this run is not worked again in it, even when it is still due.
  const worked = new Set<string>();
  let asked = DUE_TENANTS_PER_RUN;
  for (let batch = 0; batch < DUE_BATCHES_PER_RUN; batch++) {
    // Earliest due first; what this run worked already is skipped (the index is asked for that many more).
    const unworked = due.tenantIds.filter((t) => !worked.has(t));
    const fresh = unworked.slice(0, DUE_TENANTS_PER_RUN);
    if (!fresh.length) return;
    for (const t of fresh) worked.add(t);
    const tenantIds = fresh.filter(isTenantId).sort();
    if (tenantIds.length) {
      try {
        await sweepDueTenants(services, session, publisher, tenantIds, now);
      } finally {
        // Each worked tenant's next due time, from its queues (or off the index when nothing waits).
        await rescheduleDue(session, tenantIds);
      }
    }
    // The index had fewer due than asked for, and this batch took all of them: nothing else is due.
    if (due.tenantIds.length < asked && unworked.length <= DUE_TENANTS_PER_RUN) return;
    asked = DUE_TENANTS_PER_RUN + worked.size;
    due = await dueTenants(session, now, asked);
  }
}

/**
 * Tenants worked per batch, the earliest due first, and batches per cron run: at most 10,000
 * tenants a minute. Bounds one invocation's subrequests (each batch costs a few pipelined round
 * trips, plus one per approval that expires).
 */
export const DUE_TENANTS_PER_RUN = 500;
export const DUE_BATCHES_PER_RUN = 20;

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
