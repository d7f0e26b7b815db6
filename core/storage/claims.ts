import type { Redis } from '@upstash/redis/cloudflare';
import { FinishTurnJobSchema, type FinishTurnJob } from '../finish-turn-job.js';
import type { HistoryEntry } from '../history-entry.js';
import type { ConditionalWrites } from './conditional-writes.js';
import { contactStateKeys, parseHistory } from './contact-state.js';
import { DUE_INDEX_KEY, deliveryKeyDigest, retainedTtl, TTL, tenantKeys } from './keys.js';
import { parseJson, type RedisSession } from './redis-session.js';
import { turnRecordKeys } from './turn-records.js';
import { replyOrderKeys } from './reply-order.js';
import { tenantRecordKeys } from './tenant-record.js';

/**
 * The claim store: the owner of a delivery's claim (`claim(digest)`, naming the turn that won
 * it), the tenant's open claims (`openClaims`, scored by when the sweeper should finish them) and
 * each open claim's kept finish-turn job (`claimJob(turn)`), and of the parsing of their replies.
 * Opening a claim, giving it back, releasing an unfinished turn's holdings and the sweeper's
 * reads and writes of the open claims all run here. The multi-structure atomic scripts (the
 * commit, a contact's deletion) take the keys from `queueClaimClosed` and `claimKeys`; the
 * due-work index's reschedule script (core/storage/due-index.ts) reads the first open claim with
 * the index itself, its key taken from `claimKeys`.
 */

/** The open-claim keys a multi-structure script needs for a tenant: the open-claim set and a turn's kept job. */
export function claimKeys(tenantId: string): { openClaims: string; job: (turnId: string) => string } {
  const keys = tenantKeys(tenantId);
  return { openClaims: keys.openClaims, job: keys.claimJob };
}

export type ClaimResult =
  | { claimed: true; history: HistoryEntry[]; inHandoffUntil: string | null }
  | { claimed: false; existingTurnId: string };

/**
 * When a claim opens, what the sweeper needs to finish its turn if nothing else does: the job
 * (the inbound delivery) and when it is due (past the turn's own background deadline).
 */
export interface OpenClaim {
  job: FinishTurnJob;
  dueAt: number;
  /** The tenant's retention: the job holds the contact's message, so it expires by then. */
  retentionDays?: number;
}

/**
 * The claim as one command on any client — so a caller can send it in the same round trip as
 * other commands (the rate limit's, on an auto-pipelining client). `digest` is the delivery's
 * `deliveryKeyDigest`. See `claimDelivery` (src/turn/claim-delivery.ts) for what it does.
 */
export async function claimWith(
  redis: Redis,
  tenantId: string,
  digest: string,
  contactId: string,
  turnId: string,
  open: OpenClaim | undefined,
  claimSeconds: number,
): Promise<ClaimResult & { tenantRev: number | null }> {
  const keys = tenantKeys(tenantId);
  // The contact's history and handoff state (core/storage/contact-state.ts), read in the same script.
  const contact = contactStateKeys(tenantId, contactId);
  const reply = await redis.eval(
    CLAIM_SCRIPT,
    [
      keys.claim(digest),
      contact.history,
      contact.handoff,
      keys.claimJob(turnId),
      keys.openClaims,
      // The tenant's revision (core/storage/tenant-record.ts), read in the same script.
      tenantRecordKeys(tenantId).rev,
      DUE_INDEX_KEY,
    ],
    // The claim's own TTL follows its key (claimTtlSeconds); the job waits for the sweeper as before.
    [
      turnId,
      String(claimSeconds),
      open ? JSON.stringify(open.job) : '',
      open ? String(open.dueAt) : '0',
      String(retainedTtl(TTL.claimSeconds, open?.retentionDays)),
      tenantId,
    ],
  );
  const [won, owner, history, handoff, rev] = Array.isArray(reply) ? (reply as unknown[]) : [];
  // The tenant's revision, read in the same script: is the caller's cached tenant current?
  const tenantRev = rev === '' || rev === null || rev === undefined ? null : Number(rev) || 0;
  // A claim that expired between the SET and the GET leaves no owner: treat it as a lost race
  // with nobody to wait for (the caller answers without a reply rather than waiting on "null").
  if (Number(won) !== 1) return { claimed: false, existingTurnId: typeof owner === 'string' ? owner : '', tenantRev };
  return {
    claimed: true,
    history: parseHistory(history),
    inHandoffUntil: typeof handoff === 'string' && handoff !== '' ? handoff : null,
    tenantRev,
  };
}

/**
 * KEYS: claim, history, handoff, claim job, open claims, the tenant's revision, the due-work index. ARGV: turn id,
 * claim TTL s, job JSON (or ""), due time ms, job TTL s, tenant id. Returns {won, owner, history, handoff, rev}; the
 * open-claim entry (and the tenant's due time in the index, core/storage/due-index.ts) is written only by the winner.
 */
const CLAIM_SCRIPT = `
local won = redis.call('SET', KEYS[1], ARGV[1], 'NX', 'EX', tonumber(ARGV[2]))
local owner = redis.call('GET', KEYS[1]) or ''
local history = redis.call('LRANGE', KEYS[2], 0, -1)
local handoff = redis.call('GET', KEYS[3]) or ''
local rev = redis.call('GET', KEYS[6]) or ''
if won and ARGV[3] ~= '' then
  redis.call('SET', KEYS[4], ARGV[3], 'EX', tonumber(ARGV[5]))
  redis.call('ZADD', KEYS[5], tonumber(ARGV[4]), ARGV[1])
  redis.call('ZADD', KEYS[7], 'LT', tonumber(ARGV[4]), ARGV[6])
end
return {won and 1 or 0, owner, history, handoff, rev}
`;

/**
 * Gives a claim back (the message turned out to be rate limited, or its request did not
 * authenticate against the tenant's current secrets): only if it is still this turn's, with its
 * open-claim listing, so the delivery can be tried again.
 */
export async function releaseClaim(
  session: RedisSession,
  tenantId: string,
  digest: string,
  turnId: string,
): Promise<void> {
  const keys = tenantKeys(tenantId);
  await session.one((r) =>
    r.eval(RELEASE_CLAIM_SCRIPT, [keys.claim(digest), keys.openClaims, keys.claimJob(turnId)], [turnId]),
  );
}

const RELEASE_CLAIM_SCRIPT = `
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('DEL', KEYS[3])
return 1
`;

/** Listed among the tenant's open claims and not committed: nobody has finished this turn (one round trip). */
export async function isClaimStranded(session: RedisSession, tenantId: string, turnId: string): Promise<boolean> {
  const openClaims = tenantKeys(tenantId).openClaims;
  const [open, committed] = await session.pipeline((p) => {
    p.zscore(openClaims, turnId);
    p.exists(turnRecordKeys(tenantId).record(turnId));
  });
  return open !== null && open !== undefined && Number(committed) === 0;
}

/**
 * A turn that will not be run gives back what it holds, in one script (see
 * src/turn/release-unfinished-turn.ts): unless its record exists, its delivery claim (only while
 * it is still this turn's), its open-claim listing with the kept job, and its place in the
 * contact's reply order (`replyOrderMember`, or "" for none). Returns -1 if the turn committed,
 * else how many of its holdings went.
 */
export async function releaseUnfinishedClaim(
  session: RedisSession,
  turn: { tenantId: string; contactId: string; messageKey: string; turnId: string; replyOrderMember: string },
): Promise<number> {
  const { tenantId, contactId, turnId } = turn;
  const keys = tenantKeys(tenantId);
  const digest = await deliveryKeyDigest(contactId, turn.messageKey);
  const reply = await session.one((r) =>
    r.eval(
      RELEASE_UNFINISHED_SCRIPT,
      [
        turnRecordKeys(tenantId).record(turnId),
        keys.claim(digest),
        keys.openClaims,
        keys.claimJob(turnId),
        // The contact's reply order (core/storage/reply-order.ts): released in the same script.
        replyOrderKeys(tenantId).contact(contactId),
      ],
      [turnId, turn.replyOrderMember],
    ),
  );
  return Number(reply);
}

/**
 * KEYS: turn record, claim, open claims, claim job, reply order. ARGV: turn id, reply-order
 * member (or ""). Returns -1 if the turn committed, else how many of its holdings went.
 */
const RELEASE_UNFINISHED_SCRIPT = `
if redis.call('EXISTS', KEYS[1]) == 1 then return -1 end
local n = 0
if redis.call('GET', KEYS[2]) == ARGV[1] then n = n + redis.call('DEL', KEYS[2]) end
n = n + redis.call('ZREM', KEYS[3], ARGV[1])
n = n + redis.call('DEL', KEYS[4])
if ARGV[2] ~= '' then n = n + redis.call('ZREM', KEYS[5], ARGV[2]) end
return n
`;

/** The commit's part: the turn is no longer open, so the sweeper has nothing to finish (in the commit's atomic script). */
export function queueClaimClosed(w: ConditionalWrites, tenantId: string, turnId: string): void {
  const keys = claimKeys(tenantId);
  w.call('ZREM', keys.openClaims, turnId);
  w.call('DEL', keys.job(turnId));
}

/**
 * Each tenant's open claims due at `nowMs` (turn ids, at most `limit` each), in the order of
 * `tenantIds`: one round trip for all of them.
 */
export async function dueOpenClaims(
  session: RedisSession,
  tenantIds: readonly string[],
  nowMs: number,
  limit: number,
): Promise<string[][]> {
  const replies = await session.pipeline((p) => {
    for (const tenantId of tenantIds)
      p.zrange(tenantKeys(tenantId).openClaims, '-inf', nowMs, { byScore: true, offset: 0, count: limit });
  });
  return tenantIds.map((_, i) =>
    (Array.isArray(replies[i]) ? (replies[i] as unknown[]) : []).filter((id): id is string => typeof id === 'string'),
  );
}

/** An open claim as the sweeper finds it (one round trip): whether its turn committed, and its kept job (null when gone or unreadable). */
export async function readOpenClaim(
  session: RedisSession,
  tenantId: string,
  turnId: string,
): Promise<{ committed: boolean; job: FinishTurnJob | null }> {
  const [record, rawJob] = await session.pipeline((p) => {
    p.exists(turnRecordKeys(tenantId).record(turnId));
    p.get(tenantKeys(tenantId).claimJob(turnId));
  });
  const job = FinishTurnJobSchema.safeParse(parseJson(rawJob));
  return { committed: Number(record) === 1, job: job.success ? job.data : null };
}

/** The turn that holds a delivery's claim now (its stored owner), or null when the claim is gone. */
export async function claimOwner(session: RedisSession, tenantId: string, contactId: string, messageKey: string) {
  const claimKey = tenantKeys(tenantId).claim(await deliveryKeyDigest(contactId, messageKey));
  return (await session.one((r) => r.get(claimKey))) as string | null;
}

/** Takes a turn off the open claims, with its kept job (one round trip). */
export async function dropOpenClaim(session: RedisSession, tenantId: string, turnId: string): Promise<void> {
  const keys = claimKeys(tenantId);
  await session.pipeline((p) => {
    p.zrem(keys.openClaims, turnId);
    p.del(keys.job(turnId));
  });
}

/** Moves a still-listed open claim's due time to `dueAtMs` (never lists one that is gone). */
export async function rescheduleOpenClaim(
  session: RedisSession,
  tenantId: string,
  turnId: string,
  dueAtMs: number,
): Promise<void> {
  const key = claimKeys(tenantId).openClaims;
  await session.one((r) => r.zadd(key, { xx: true }, { score: dueAtMs, member: turnId }));
}
