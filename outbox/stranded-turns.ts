import { FinishTurnJobSchema } from '../core/finish-turn-job.js';
import { deliveryKeyDigest, tenantKeys } from '../core/storage/keys.js';
import { parseJson, type RedisSession } from '../core/storage/redis-session.js';
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
  const dueByTenant = await session.pipeline((p) => {
    for (const tenantId of input.tenantIds)
      p.zrange(tenantKeys(tenantId).openClaims, '-inf', now, { byScore: true, offset: 0, count: BATCH });
  });
  for (const [i, tenantId] of input.tenantIds.entries()) {
    const keys = tenantKeys(tenantId);
    const due = (Array.isArray(dueByTenant[i]) ? (dueByTenant[i] as unknown[]) : []).filter(
      (id): id is string => typeof id === 'string',
    );
    for (const turnId of due) {
      result.found++;
      const [record, rawJob] = await session.pipeline((p) => {
        p.exists(keys.turn(turnId));
        p.get(keys.claimJob(turnId));
      });
      const job = FinishTurnJobSchema.safeParse(parseJson(rawJob));
      const claimKey = job.success
        ? keys.claim(await deliveryKeyDigest(job.data.inbound.contactId, job.data.inbound.messageKey))
        : null;
      const owner = claimKey ? await session.one((r) => r.get(claimKey)) : null;
      // Another turn owns the claim: this one was given back. No owner with the job still kept: a
      // short-window claim (a key only the text identifies) lapsed while its turn was stranded;
      // the turn is still finished.
      if (Number(record) === 1 || !job.success || (owner !== turnId && owner !== null)) {
        await session.pipeline((p) => {
          p.zrem(keys.openClaims, turnId);
          p.del(keys.claimJob(turnId));
        });
        result.dropped++;
        continue;
      }
      try {
        await turnJobs.publishFinishTurn(job.data, 0, { attempt: `sweep${now}` });
        result.published++;
      } catch (err) {
        result.failed++;
        result.errors.push(`${tenantId}/${turnId}: ${err instanceof Error ? err.message : String(err)}`);
      }
      // Published or not, it is looked at again only after a while (the rerun commits first, or not).
      await session.one((r) =>
        r.zadd(
          keys.openClaims,
          { xx: true },
          { score: now + (input.retryAfterMs ?? STRANDED_RETRY_AFTER_MS), member: turnId },
        ),
      );
    }
  }
  return result;
}
