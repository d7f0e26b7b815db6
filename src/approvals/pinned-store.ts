import type { OutboxEntry } from '../../core/outbox-entry.js';
import { DUE_INDEX_KEY, TTL } from '../../core/storage/keys.js';
import type { RedisSession } from '../../core/storage/redis-session.js';
import type { PinnedTerms } from '../../core/pinned-terms.js';
import {
  pendingCallOwners,
  pinnedKeys,
  readCorrections,
  readPinnedRows,
  writePinnedTermsOnce,
} from '../../core/storage/pinned-rows.js';
import { sha1Hex } from '../../core/security/digest.js';
import { outboxDueAt } from '../../core/storage/due-index.js';
import { outboxKeys } from '../../core/storage/outbox-store.js';

/**
 * `superseded`: another row for the same call owned it, or its call's gate changed; this one
 * performed nothing. `refused`: answered Yes or approved, but the tenant's configuration no
 * longer allows any of its actions; nothing was performed and the contact was told.
 */
export type PinnedStatus =
  'pending' | 'approved' | 'rejected' | 'expired' | 'confirmed' | 'declined' | 'superseded' | 'refused';

export class PinnedTermsImmutableError extends Error {
  override name = 'PinnedTermsImmutableError';
}

/**
 * Writes terms outside a commit. Existing terms are never replaced: a second write for the same
 * id is refused, which is the only write path to a row's terms.
 */
export async function writePinnedTerms(session: RedisSession, terms: PinnedTerms): Promise<void> {
  if (!(await writePinnedTermsOnce(session, terms)))
    throw new PinnedTermsImmutableError(`the pinned terms of ${terms.id} already exist and cannot be changed`);
}

export interface LoadedPinned {
  terms: PinnedTerms;
  /** The exact stored text, so the decision can check nothing changed in between. */
  raw: string;
  status: PinnedStatus;
}

export async function loadPinned(session: RedisSession, tenantId: string, id: string): Promise<LoadedPinned | null> {
  const [row] = await readPinnedRows(session, tenantId, [id]);
  if (!row || row.terms.tenantId !== tenantId) return null;
  return { terms: row.terms, raw: row.raw, status: row.status as PinnedStatus };
}

/**
 * The one decision on a pending row, atomically: only `pending` moves, only if the stored terms
 * are byte-for-byte the ones the caller verified (SHA-1 of the text) and not expired; in the same
 * script the outbox entry that performs the decision is written. Two approvers, a double click or
 * a replayed button: the first wins, the others get the status it left.
 *
 * KEYS[6] is the cron's due-work index; KEYS[7..] are the row's pending-call index keys. A row performs its calls only while it owns
 * every one of them: a second row for the same call (two concurrent turns both pinned it) is
 * `superseded` instead, so the call is performed once. Whatever the decision, the row lets go of
 * the calls it owns, so the contact may ask for them afresh.
 */
const DECIDE_SCRIPT = `
local status = redis.call('GET', KEYS[1])
if status ~= 'pending' then return status or 'missing' end
local terms = redis.call('GET', KEYS[2])
if not terms or redis.sha1hex(terms) ~= ARGV[1] then return 'tampered' end
local expired = tonumber(ARGV[2]) > tonumber(ARGV[3])
if ARGV[4] == 'expired' then
  if not expired then return 'not-expired' end
elseif expired then
  -- Left pending: the expiry job moves it and tells the contact nothing was changed.
  return 'expired'
end
if ARGV[4] == 'confirmed' or ARGV[4] == 'approved' then
  for i = 7, #KEYS do
    local owner = redis.call('GET', KEYS[i])
    if owner and owner ~= ARGV[8] then
      redis.call('SET', KEYS[1], 'superseded', 'KEEPTTL')
      redis.call('ZREM', KEYS[5], ARGV[8])
      return 'superseded'
    end
  end
end
for i = 7, #KEYS do
  if redis.call('GET', KEYS[i]) == ARGV[8] then redis.call('DEL', KEYS[i]) end
end
redis.call('SET', KEYS[1], ARGV[4], 'KEEPTTL')
redis.call('ZREM', KEYS[5], ARGV[8])
if ARGV[5] ~= '' then
  redis.call('SET', KEYS[3], ARGV[5], 'EX', ARGV[7])
  redis.call('ZADD', KEYS[4], ARGV[2], ARGV[6])
  -- The cron's due-work index (core/storage/due-index.ts): swept again if its publish is lost.
  redis.call('ZADD', KEYS[6], 'LT', tonumber(ARGV[10]), ARGV[9])
end
return 'ok'
`;

export type DecideResult = 'ok' | 'expired' | 'not-expired' | 'tampered' | 'missing' | PinnedStatus;

/**
 * For each of the row's actions, whether the row owns its call (the contact's pending-call index
 * names it). Two turns that pinned {A,B} and {B,C} at once leave B with the first row: the second
 * may perform C only, and never B — not while the first row waits, nor after it was decided.
 * Null for a row written before call digests (it owns all its actions). One round trip.
 */
export async function ownedCalls(session: RedisSession, terms: PinnedTerms): Promise<boolean[] | null> {
  const digests = terms.callDigests;
  if (!digests?.length || digests.length !== terms.actions.length) return null;
  const owners = await pendingCallOwners(session, terms.tenantId, terms.contactId, digests);
  return owners.map((owner) => owner === terms.id);
}

export async function decidePinned(
  session: RedisSession,
  loaded: LoadedPinned,
  decision: Exclude<PinnedStatus, 'pending' | 'expired'> | 'expired',
  entry: OutboxEntry | null,
  now: Date,
  /**
   * The call digests the decision performs (default: all the row's). A row that performs only the
   * calls it owns (`ownedCalls`) names those: the script then checks, atomically, that it still owns
   * each of them, and leaves the calls another row owns to that row.
   */
  calls: readonly string[] = loaded.terms.callDigests ?? [],
): Promise<DecideResult> {
  return decide(session, loaded, decision, entry, now, calls, Date.parse(loaded.terms.expiresAt));
}

/**
 * Expires a pending row whose signature does not verify — changed behind the code's back, or
 * signed under a SESSION_SECRET the Worker no longer holds (rotated without keeping it as
 * SESSION_SECRET_PREVIOUS). Left pending, it would answer "could not be verified" to every press
 * and be read again by every cron until its key expired. Its deadline is taken as past; `notice`
 * (telling the contact nothing was changed) is committed with it, in the same script.
 */
export function expireUnverifiable(
  session: RedisSession,
  loaded: LoadedPinned,
  notice: OutboxEntry | null,
  now: Date,
): Promise<DecideResult> {
  // Deadline 0 (the epoch): every now is past it.
  return decide(session, loaded, 'expired', notice, now, loaded.terms.callDigests ?? [], 0);
}

async function decide(
  session: RedisSession,
  loaded: LoadedPinned,
  decision: Exclude<PinnedStatus, 'pending' | 'expired'> | 'expired',
  entry: OutboxEntry | null,
  now: Date,
  calls: readonly string[],
  /** When the row stops being decidable, ms (its terms' expiresAt; 0: already). */
  deadlineMs: number,
): Promise<DecideResult> {
  const { terms } = loaded;
  // The row's keys and the decided row's entry, written in the same script (core/storage/pinned-rows.ts,
  // core/storage/outbox-store.ts).
  const keys = pinnedKeys(terms.tenantId);
  // The decided row's entry, written in the same script (core/storage/outbox-store.ts).
  const outbox = outboxKeys(terms.tenantId);
  const entryId = entry?.turnId ?? 'none';
  const termsSha1 = await sha1Hex(loaded.raw);
  const result = await session.one((r) =>
    r.eval(
      DECIDE_SCRIPT,
      [
        keys.status(terms.id),
        keys.terms(terms.id),
        outbox.entry(entryId),
        outbox.pending,
        keys.approvalQueue,
        DUE_INDEX_KEY,
        ...calls.map((d) => keys.pendingCall(terms.contactId, d)),
      ],
      [
        termsSha1,
        String(now.getTime()),
        String(deadlineMs),
        decision,
        entry ? JSON.stringify(entry) : '',
        entryId,
        String(TTL.outboxSeconds),
        terms.id,
        terms.tenantId,
        String(outboxDueAt(now.getTime())),
      ],
    ),
  );
  return String(result) as DecideResult;
}

/**
 * Retires a pending row whose kind no longer matches its call's gate (the tenant re-gated the
 * tool): `pending` → `superseded`, out of the approval queue, and the pending-call index it owns
 * let go, so the row the gate asks for now can own the call. A row decided meanwhile is left as
 * it is. True when this call retired it.
 */
const SUPERSEDE_SCRIPT = `
if redis.call('GET', KEYS[1]) ~= 'pending' then return 0 end
redis.call('SET', KEYS[1], 'superseded', 'KEEPTTL')
redis.call('ZREM', KEYS[2], ARGV[1])
for i = 3, #KEYS do
  if redis.call('GET', KEYS[i]) == ARGV[1] then redis.call('DEL', KEYS[i]) end
end
return 1
`;

export async function supersedePinned(session: RedisSession, terms: PinnedTerms): Promise<boolean> {
  const keys = pinnedKeys(terms.tenantId);
  const result = await session.one((r) =>
    r.eval(
      SUPERSEDE_SCRIPT,
      [
        keys.status(terms.id),
        keys.approvalQueue,
        ...(terms.callDigests ?? []).map((d) => keys.pendingCall(terms.contactId, d)),
      ],
      [terms.id],
    ),
  );
  return Number(result) === 1;
}

/**
 * Which approval corrected which: the original's correction mark (`pinnedKeys(...).correction`,
 * beside its status) = the new row's id, written once (correct-approval.ts, in the script that
 * writes the new row, guarded on that key), so an original has at most one correction and the
 * dashboard can show the pair. The correcting row of each original that has one (one round trip).
 */
export function correctionsOf(
  session: RedisSession,
  tenantId: string,
  ids: readonly string[],
): Promise<Map<string, string>> {
  return readCorrections(session, tenantId, ids);
}
