import type { FinishTurnJob } from '../../core/finish-turn-job.js';
import type { HistoryEntry } from '../../core/history-entry.js';
import { claimTtlSeconds, deliveryKeyDigest, retainedTtl, TTL, tenantKeys } from '../../core/storage/keys.js';
import { DUE_INDEX_KEY } from '../../core/storage/due-index.js';
import type { Redis } from '@upstash/redis/cloudflare';
import { parseJson, type RedisSession } from '../../core/storage/redis-session.js';

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
 * Claims a delivery with SET NX and, in the same round trip, reads what the turn needs (history,
 * handoff state). A retried or concurrent duplicate loses the SET and learns the turn it belongs
 * to from the GET queued right after it. The claim is named by the contact and the whole message
 * key, hashed: no two contacts, and no two different keys, ever share one.
 *
 * Given an `open` claim, the winner is also listed among the tenant's open claims (the job kept
 * beside it), in the same script: if the isolate dies, or every finish-turn publish fails, the
 * sweeper finds the claim past its due time and finishes the turn. The commit takes it off.
 */
export async function claimDelivery(
  session: RedisSession,
  tenantId: string,
  messageKey: string,
  contactId: string,
  turnId: string,
  open?: OpenClaim,
): Promise<ClaimResult> {
  const digest = await deliveryKeyDigest(contactId, messageKey);
  const { tenantRev: _rev, ...claim } = await session.one((r) =>
    claimWith(r, tenantId, digest, contactId, turnId, open, claimTtlSeconds(messageKey)),
  );
  return claim;
}

/**
 * The claim as one command on any client — so a caller can send it in the same round trip as
 * other commands (the rate limit's, on an auto-pipelining client). `digest` is the delivery's
 * `deliveryKeyDigest`.
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
  const reply = await redis.eval(
    CLAIM_SCRIPT,
    [
      keys.claim(digest),
      keys.history(contactId),
      keys.handoff(contactId),
      keys.claimJob(turnId),
      keys.openClaims,
      keys.rev,
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

/** The stored history list as the model may see it: contact and agent lines only, anything else dropped. */
export function parseHistory(raw: unknown): HistoryEntry[] {
  return (Array.isArray(raw) ? raw : [])
    .map((h) => parseJson(h) as HistoryEntry | null)
    .filter(
      (h): h is HistoryEntry => !!h && (h.role === 'contact' || h.role === 'agent') && typeof h.text === 'string',
    );
}

/** Waits for the turn a duplicate belongs to; null if it has not finished by `deadline`. */
export async function awaitTurnRecord<T>(
  session: RedisSession,
  tenantId: string,
  turnId: string,
  deadline: number,
  parse: (raw: unknown) => T | null,
): Promise<T | null> {
  const key = tenantKeys(tenantId).turn(turnId);
  for (;;) {
    const raw = await session.one((r) => r.get(key));
    if (raw != null) return parse(parseJson(raw));
    if (Date.now() + 100 > deadline) return null;
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Listed among the tenant's open claims and not committed: nobody has finished this turn (one round trip). */
export async function isClaimStranded(session: RedisSession, tenantId: string, turnId: string): Promise<boolean> {
  const keys = tenantKeys(tenantId);
  const [open, committed] = await session.pipeline((p) => {
    p.zscore(keys.openClaims, turnId);
    p.exists(keys.turn(turnId));
  });
  return open !== null && open !== undefined && Number(committed) === 0;
}
