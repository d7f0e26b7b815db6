import type { FinishTurnJob } from '../../core/finish-turn-job.js';
import { deliveryKeyDigest, tenantKeys } from '../../core/storage/keys.js';
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
  const keys = tenantKeys(inbound.tenantId);
  const digest = await deliveryKeyDigest(inbound.contactId, inbound.messageKey);
  const sequence = await replySequenceOf(inbound);
  const reply = await session.one((r) =>
    r.eval(
      RELEASE_SCRIPT,
      [
        keys.turn(turnId),
        keys.claim(digest),
        keys.openClaims,
        keys.claimJob(turnId),
        keys.replyOrder(inbound.contactId),
      ],
      [turnId, sequence?.member ?? ''],
    ),
  );
  const released = Number(reply);
  return released < 0 ? { kind: 'already-done' } : { kind: 'released', released: released > 0 };
}

/**
 * KEYS: turn record, claim, open claims, claim job, reply order. ARGV: turn id, reply-order
 * member (or ""). Returns -1 if the turn committed, else how many of its holdings went.
 */
const RELEASE_SCRIPT = `
if redis.call('EXISTS', KEYS[1]) == 1 then return -1 end
local n = 0
if redis.call('GET', KEYS[2]) == ARGV[1] then n = n + redis.call('DEL', KEYS[2]) end
n = n + redis.call('ZREM', KEYS[3], ARGV[1])
n = n + redis.call('DEL', KEYS[4])
if ARGV[2] ~= '' then n = n + redis.call('ZREM', KEYS[5], ARGV[2]) end
return n
`;
