import type { FinishTurnJob } from '../../core/finish-turn-job.js';
import { releaseUnfinishedClaim } from '../../core/storage/claims.js';
import type { RedisSession } from '../../core/storage/redis-session.js';
import { replySequenceOf } from './reply-sequence.js';

export type ReleaseOutcome =
  /** The turn committed after all: nothing was touched (its claim keeps joining retries to it). */
  | { kind: 'already-done' }
  /** `released`: whether this call gave anything back (false for a second copy of the job). */
  | { kind: 'released'; released: boolean };

/**
 * A turn that will not be run (its tenant is suspended) gives back what it holds, in one script:
 * its delivery claim (only while it is still this turn's), its listing among the open claims
 * with the kept job (so the sweeper stops publishing it), and its place in the contact's reply
 * order (so a later reply does not wait for it). A retry of the delivery after the tenant is
 * resumed then starts a turn instead of waiting on one that never commits.
 *
 * A turn whose record exists committed, and is left alone: releasing its claim would let the
 * same delivery commit a second turn. (A run of the turn still alive past its finish job's due
 * time could commit after this; the job is due only after the run's own deadline has passed.)
 */
export async function releaseUnfinishedTurn(session: RedisSession, job: FinishTurnJob): Promise<ReleaseOutcome> {
  const { turnId, inbound } = job;
  const sequence = await replySequenceOf(inbound);
  const released = await releaseUnfinishedClaim(session, {
    tenantId: inbound.tenantId,
    contactId: inbound.contactId,
    messageKey: inbound.messageKey,
    turnId,
    replyOrderMember: sequence?.member ?? '',
  });
  return released < 0 ? { kind: 'already-done' } : { kind: 'released', released: released > 0 };
}
