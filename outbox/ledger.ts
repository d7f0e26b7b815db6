import type { RedisSession } from '../core/storage/redis-session.js';
import { TTL, retainedTtl } from '../core/storage/keys.js';
import { deadLetterKeys } from '../core/storage/dead-letter-list.js';
import type { LedgerRow, LedgerState } from '../core/outbox-entry.js';
import { outboxKeys, parseLedgerRow } from '../core/storage/outbox-store.js';

/**
 * The per-action ledger of one outbox entry: the hash `ledger(turnId)`, field = action id,
 * value = a JSON `LedgerRow` (its key, its reads and the parsing of its replies are the outbox
 * store's, core/storage/outbox-store.ts). Every state change is one Lua script, so "read the
 * state, decide, write the state" cannot interleave with another delivery of the same entry.
 *
 *   absent/pending ──claim──▶ claimed ──done──▶ done
 *                                │ ├──release (API said 429/5xx: surely not performed)──▶ pending
 *                                │ ├──unknown (no answer: may have happened)──▶ unknown
 *                                │ └──dead (API refused for good)──▶ dead
 *   done, dead, unknown are terminal for delivery; only a tenant's re-drive leaves them.
 */

/** A transition that found the row in another state says which, so the caller can decide. */
export type Transition =
  { applied: true; row: LedgerRow } | { applied: false; row: LedgerRow | null; reason: 'state' | 'lease' };

/** Rows stay as long as their outbox entry. */
const LEDGER_TTL_SECONDS = TTL.outboxSeconds;
/** Dead-letter lists are bounded: the newest this many are kept. */
export const DEAD_LETTER_LIMIT = 1000;

/**
 * KEYS[1] ledger hash, KEYS[2] dead-letter list, KEYS[3] delivery lease.
 * ARGV[1] field, ARGV[2] comma list of states it may leave ("absent" = no row), ARGV[3] new
 * state, ARGV[4] ISO time, ARGV[5] detail mode keep|set|clear, ARGV[6] detail, ARGV[7] "1" to
 * count an attempt, ARGV[8] ledger TTL s, ARGV[9] dead-letter JSON or "", ARGV[10] dead-letter
 * limit, ARGV[11] lease token or "" (no fence), ARGV[12] lease ms, ARGV[13] "1" to remove this
 * action's items from the dead-letter list (a re-drive takes it off the list), ARGV[14] turn id.
 * Returns {1, row} applied, {0, row-or-""} wrong state, {-1, row-or-""} lease lost.
 * The fence makes a delivery that lost its lease unable to claim: only the holder may start a call.
 */
const TRANSITION_LUA = `
local raw = redis.call('HGET', KEYS[1], ARGV[1])
if ARGV[11] ~= '' then
  if redis.call('GET', KEYS[3]) ~= ARGV[11] then return {-1, raw or ''} end
  redis.call('PEXPIRE', KEYS[3], tonumber(ARGV[12]))
end
local row
local current = 'absent'
if raw then
  row = cjson.decode(raw)
  current = row.state
else
  row = { attempts = 0 }
end
local allowed = false
for s in string.gmatch(ARGV[2], '[^,]+') do
  if s == current then allowed = true end
end
if not allowed then return {0, raw or ''} end
row.state = ARGV[3]
row.at = ARGV[4]
if ARGV[7] == '1' then row.attempts = (tonumber(row.attempts) or 0) + 1 end
if ARGV[5] == 'set' then row.detail = ARGV[6] elseif ARGV[5] == 'clear' then row.detail = nil end
local encoded = cjson.encode(row)
redis.call('HSET', KEYS[1], ARGV[1], encoded)
redis.call('EXPIRE', KEYS[1], tonumber(ARGV[8]))
if ARGV[9] ~= '' then
  redis.call('LPUSH', KEYS[2], ARGV[9])
  redis.call('LTRIM', KEYS[2], 0, tonumber(ARGV[10]) - 1)
  redis.call('EXPIRE', KEYS[2], tonumber(ARGV[8]))
  -- The list's TTL restarts with each letter, so old letters go by their own time: newest first,
  -- the tail is the oldest; drop it while it is past the retention (ISO times compare as text).
  while true do
    local oldest = redis.call('LINDEX', KEYS[2], -1)
    if not oldest then break end
    local ok, letter = pcall(cjson.decode, oldest)
    if ok and type(letter) == 'table' and type(letter.at) == 'string' and letter.at < ARGV[15] then
      redis.call('RPOP', KEYS[2])
    else
      break
    end
  end
end
if ARGV[13] == '1' then
  for _, item in ipairs(redis.call('LRANGE', KEYS[2], 0, -1)) do
    local ok, letter = pcall(cjson.decode, item)
    if ok and type(letter) == 'table' and (letter.entryId or letter.turnId) == ARGV[14] and letter.actionId == ARGV[1] then
      redis.call('LREM', KEYS[2], 0, item)
    end
  end
end
return {1, encoded}
`;

export interface LedgerRef {
  session: RedisSession;
  tenantId: string;
  turnId: string;
  /** The entry's retention: the ledger and the dead-letter list expire by then (default: the outbox's TTL). */
  retentionDays?: number;
}

export interface Fence {
  leaseKey: string;
  token: string;
  leaseMs: number;
}

interface TransitionSpec {
  from: readonly (LedgerState | 'absent')[];
  to: LedgerState;
  at: Date;
  detail?: { mode: 'keep' } | { mode: 'set'; text: string } | { mode: 'clear' };
  countAttempt?: boolean;
  /** JSON pushed to the tenant's dead-letter list in the same script, when applied. */
  deadLetter?: string;
  /** Take this action's items off the dead-letter list, in the same script. */
  unlist?: boolean;
  fence?: Fence;
}

async function transition(ref: LedgerRef, actionId: string, spec: TransitionSpec): Promise<Transition> {
  const outbox = outboxKeys(ref.tenantId);
  const detail = spec.detail ?? { mode: 'keep' };
  const fence = spec.fence;
  const ttlSeconds = retainedTtl(LEDGER_TTL_SECONDS, ref.retentionDays);
  const reply = await ref.session.one((r) =>
    r.eval<string[], [number, string]>(
      TRANSITION_LUA,
      [outbox.ledger(ref.turnId), deadLetterKeys(ref.tenantId).list, fence?.leaseKey ?? outbox.lease(ref.turnId)],
      [
        actionId,
        spec.from.join(','),
        spec.to,
        spec.at.toISOString(),
        detail.mode,
        detail.mode === 'set' ? detail.text : '',
        spec.countAttempt ? '1' : '0',
        String(ttlSeconds),
        spec.deadLetter ?? '',
        String(DEAD_LETTER_LIMIT),
        fence?.token ?? '',
        String(fence?.leaseMs ?? 0),
        spec.unlist ? '1' : '0',
        ref.turnId,
        // Dead letters listed before this instant are past the retention.
        new Date(spec.at.getTime() - ttlSeconds * 1000).toISOString(),
      ],
    ),
  );
  const [status, rawRow] = reply;
  const row = parseLedgerRow(rawRow);
  if (Number(status) === 1 && row) return { applied: true, row };
  return { applied: false, row, reason: Number(status) === -1 ? 'lease' : 'state' };
}

/** pending/absent → claimed (attempts+1). `reclaim` also takes a stale `claimed` (idempotent actions only). */
export function claimAction(
  ref: LedgerRef,
  actionId: string,
  at: Date,
  opts: { reclaim?: boolean; fence?: Fence } = {},
): Promise<Transition> {
  return transition(ref, actionId, {
    from: opts.reclaim ? ['absent', 'pending', 'claimed'] : ['absent', 'pending'],
    to: 'claimed',
    at,
    countAttempt: true,
    ...(opts.fence ? { fence: opts.fence } : {}),
  });
}

/**
 * claimed → done. Also from `unknown`: if a delivery that timed out on its own call later learns
 * the call succeeded, the truth is recorded; nothing is ever resent from `unknown` either way.
 */
export function markDone(ref: LedgerRef, actionId: string, at: Date, detail?: string): Promise<Transition> {
  return transition(ref, actionId, {
    from: ['claimed', 'unknown'],
    to: 'done',
    at,
    detail: detail ? { mode: 'set', text: detail } : { mode: 'clear' },
  });
}

/** claimed (or never claimed, e.g. invalid arguments) → dead, with the API's words, listed for the tenant. */
export function markDead(
  ref: LedgerRef,
  actionId: string,
  at: Date,
  detail: string,
  deadLetter: string,
): Promise<Transition> {
  return transition(ref, actionId, {
    from: ['absent', 'pending', 'claimed'],
    to: 'dead',
    at,
    detail: { mode: 'set', text: detail },
    deadLetter,
  });
}

/** claimed → pending: the API answered in a way that proves it did not perform (429/5xx). */
export function releaseClaim(ref: LedgerRef, actionId: string, at: Date, detail: string): Promise<Transition> {
  return transition(ref, actionId, { from: ['claimed'], to: 'pending', at, detail: { mode: 'set', text: detail } });
}

/** claimed → unknown: the call may have happened; never resent, listed for the tenant. */
export function markUnknown(
  ref: LedgerRef,
  actionId: string,
  at: Date,
  detail: string,
  deadLetter: string,
): Promise<Transition> {
  return transition(ref, actionId, {
    from: ['claimed'],
    to: 'unknown',
    at,
    detail: { mode: 'set', text: detail },
    deadLetter,
  });
}

/**
 * An action whose entry is gone or unreadable, so no delivery can perform it: → dead (never
 * claimed: it was not performed) or → unknown (claimed: it may have been), listed for the tenant.
 * Applies once: a second delivery finds the row terminal and lists nothing again.
 */
export function markLost(
  ref: LedgerRef,
  actionId: string,
  at: Date,
  to: 'dead' | 'unknown',
  detail: string,
  deadLetter: string,
): Promise<Transition> {
  return transition(ref, actionId, {
    from: to === 'dead' ? ['absent', 'pending'] : ['absent', 'pending', 'claimed'],
    to,
    at,
    detail: { mode: 'set', text: detail },
    deadLetter,
  });
}

/** dead/unknown → pending, for a tenant's re-drive. Which states may be re-driven is the caller's rule. */
export function resetForRedrive(
  ref: LedgerRef,
  actionId: string,
  at: Date,
  from: readonly ('dead' | 'unknown')[],
): Promise<Transition> {
  return transition(ref, actionId, { from, to: 'pending', at, detail: { mode: 'keep' }, unlist: true });
}

/** Done, dead or unknown: nothing left to perform. No row (undefined) is not terminal. */
export function isTerminal(state: LedgerState | undefined): boolean {
  return state === 'done' || state === 'dead' || state === 'unknown';
}
