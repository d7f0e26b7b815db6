import {
  claimOwner,
  dropOpenClaim,
  dueOpenClaims,
  readOpenClaim,
  rescheduleOpenClaim,
} from '../core/storage/claims.js';
import type { RedisSession } from '../core/storage/redis-session.js';
import type { TurnJobPublisher } from './finish-turn-publisher.js';

/**
 * Stranded turns: a claim whose turn never committed — the isolate died before the commit and
 * the finish-turn job that should have rerun it was lost (its publish failed, or QStash gave up).
 * Every claim is listed among its tenant's open claims until its commit takes it off, with the
 * job beside it; the cron finds those past their due time and publishes their finish-turn job
 * again (with its own deduplication label, so QStash's window cannot swallow it). The rerun
 * answers the contact through the outbox — with the model's reply, or the fallback if the turn
 * fails again. Nothing was performed before the commit, so running the turn again is safe.
 *
 * A listed turn is dropped when it committed after all, when its claim names another turn (a
 * duplicate's), or when its job is gone (expired with the claim). A failed publish leaves it
 * listed, due again after `retryAfterMs`.
 */
export interface StrandedSweepResult {
  found: number;
  published: number;
  dropped: number;
  failed: number;
  errors: string[];
}

export const STRANDED_RETRY_AFTER_MS = 60_000;
const BATCH = 50;

export async function finishStrandedTurns(input: {
  session: RedisSession;
  turnJobs: TurnJobPublisher;
  tenantIds: readonly string[];
  now?: Date;
  retryAfterMs?: number;
}): Promise<StrandedSweepResult> {
  const { session, turnJobs } = input;
  const now = (input.now ?? new Date()).getTime();
  const result: StrandedSweepResult = { found: 0, published: 0, dropped: 0, failed: 0, errors: [] };
  if (!input.tenantIds.length) return result;
  // Every tenant's due claims in one round trip: an idle cron costs one request, however many
  // tenants there are (a request per tenant would also run into Workers' subrequest limit).
  const dueByTenant = await dueOpenClaims(session, input.tenantIds, now, BATCH);
  for (const [i, tenantId] of input.tenantIds.entries()) {
    for (const turnId of dueByTenant[i]!) {
      result.found++;
      const { committed, job } = await readOpenClaim(session, tenantId, turnId);
      const owner = job ? await claimOwner(session, tenantId, job.inbound.contactId, job.inbound.messageKey) : null;
      // Another turn owns the claim: this one was given back. No owner with the job still kept: a
      // short-window claim (a key only the text identifies) lapsed while its turn was stranded;
      // the turn is still finished.
      if (committed || !job || (owner !== turnId && owner !== null)) {
        await dropOpenClaim(session, tenantId, turnId);
        result.dropped++;
        continue;
      }
      try {
        await turnJobs.publishFinishTurn(job, 0, { attempt: `sweep${now}` });
        result.published++;
      } catch (err) {
        result.failed++;
        result.errors.push(`${tenantId}/${turnId}: ${err instanceof Error ? err.message : String(err)}`);
      }
      // Published or not, it is looked at again only after a while (the rerun commits first, or not).
      await rescheduleOpenClaim(session, tenantId, turnId, now + (input.retryAfterMs ?? STRANDED_RETRY_AFTER_MS));
    }
  }
  return result;
}
