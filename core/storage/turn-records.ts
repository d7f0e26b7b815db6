import type { TurnRecord } from '../turn-record.js';
import type { ConditionalWrites } from './conditional-writes.js';
import { tenantKeys } from './keys.js';
import { parseJson, type RedisSession } from './redis-session.js';

/**
 * The turn-record store: the owner of a turn's stored record (`turn(id)`), the tenant's turn log
 * (`turnLog`, scored by start) and each contact's turn index (`contactTurns`), and of the parsing
 * of their replies. The commit queues them into its one atomic script (outbox/commit.ts, through
 * `queueTurnRecord`, its guard the record key from `turnRecordKeys`); a contact's deletion and the
 * other stores' scripts take the keys from `turnRecordKeys`; everyone else reads through here,
 * always under the tenant's prefix, and a record naming another tenant is dropped.
 */

/** How many turns the tenant's log keeps (the newest). */
const TURN_LOG_LIMIT = 1000;

/** The keys a multi-structure script (the commit, a deletion, the claim) needs for a tenant's turns. */
export function turnRecordKeys(tenantId: string): {
  record: (turnId: string) => string;
  log: string;
  contactTurns: (contactId: string) => string;
} {
  const keys = tenantKeys(tenantId);
  return { record: keys.turn, log: keys.turnLog, contactTurns: keys.contactTurns };
}

/**
 * Queues the turn's record into the commit's atomic script: the record itself, the contact's turn
 * index (so a deletion request reaches every one of them) and the tenant's log, trimmed to its
 * newest `TURN_LOG_LIMIT`. `ttlSeconds` is the record's TTL under the tenant's retention.
 *
 * The log follows its records out: ids of turns started longer than the retention before this one
 * are dropped (their records have expired), and the log itself expires with its newest record, so
 * a tenant with no turn for the retention period keeps no turn log at all. (It had no TTL: up to
 * 1,000 ids of expired turns, ≈ 128 KB a tenant once Redis stores the set as a skiplist, stayed
 * forever; measured by `npm run bench:scale` at 2,000 turns a tenant.)
 */
export function queueTurnRecord(w: ConditionalWrites, record: TurnRecord, ttlSeconds: number): void {
  const keys = turnRecordKeys(record.tenantId);
  const startedAt = Date.parse(record.startedAt);
  w.call('SET', keys.record(record.turnId), JSON.stringify(record), 'EX', ttlSeconds);
  w.call('ZADD', keys.contactTurns(record.contactId), startedAt, record.turnId);
  w.call('EXPIRE', keys.contactTurns(record.contactId), ttlSeconds);
  w.call('ZADD', keys.log, startedAt, record.turnId);
  w.call('ZREMRANGEBYRANK', keys.log, 0, -TURN_LOG_LIMIT - 1);
  w.call('ZREMRANGEBYSCORE', keys.log, '-inf', `(${startedAt - ttlSeconds * 1000}`);
  w.call('EXPIRE', keys.log, ttlSeconds);
}

export function parseTurnRecord(raw: unknown): TurnRecord | null {
  const value = parseJson(raw);
  return value && typeof value === 'object' && 'turnId' in value && 'inbound' in value ? (value as TurnRecord) : null;
}

/**
 * One turn's record as it is stored (parsed JSON: an object, or null when missing or not JSON),
 * for the tenant API, which shows it whole. One round trip.
 */
export async function readStoredTurn(session: RedisSession, tenantId: string, turnId: string): Promise<unknown> {
  const raw = await session.one((r) => r.get(turnRecordKeys(tenantId).record(turnId)));
  return parseJson(raw);
}

/** The records of these turns (one round trip), in order; missing, unreadable and foreign ones left out. */
export async function loadTurnRecords(
  session: RedisSession,
  tenantId: string,
  ids: readonly string[],
): Promise<TurnRecord[]> {
  if (!ids.length) return [];
  const keys = tenantKeys(tenantId);
  const raw = await session.pipeline((p) => {
    for (const id of ids) p.get(keys.turn(id));
  });
  return raw.map(parseTurnRecord).filter((r): r is TurnRecord => r !== null && r.tenantId === tenantId);
}

/** The newest `limit` turn ids of the tenant's log (newest first), and how many it holds. */
export async function newestTurnIds(
  session: RedisSession,
  tenantId: string,
  limit: number,
  offset = 0,
): Promise<{ ids: string[]; total: number }> {
  const key = tenantKeys(tenantId).turnLog;
  const [ids, total] = await session.pipeline((p) => {
    p.zrange(key, offset, offset + limit - 1, { rev: true });
    p.zcard(key);
  });
  return { ids: (ids as string[]) ?? [], total: Number(total) || 0 };
}

/**
 * One page of turn ids, newest first, from a contact's index (or the tenant's log when no contact
 * is named), by start time: `until` exclusive, `since` inclusive (ms).
 */
export async function turnIdsByTime(
  session: RedisSession,
  tenantId: string,
  range: { contactId?: string; sinceMs?: number; untilMs?: number; offset: number; count: number },
): Promise<string[]> {
  const keys = tenantKeys(tenantId);
  const index = range.contactId ? keys.contactTurns(range.contactId) : keys.turnLog;
  const newest = range.untilMs !== undefined ? (`(${range.untilMs}` as const) : ('+inf' as const);
  const oldest = range.sinceMs ?? ('-inf' as const);
  return (await session.one((r) =>
    r.zrange(index, newest, oldest, { byScore: true, rev: true, offset: range.offset, count: range.count }),
  )) as string[];
}

/** Each contact's newest turn id (null for a contact with none kept), in one round trip. */
export async function newestTurnIdOfContacts(
  session: RedisSession,
  tenantId: string,
  contactIds: readonly string[],
): Promise<(string | null)[]> {
  if (!contactIds.length) return [];
  const keys = tenantKeys(tenantId);
  const replies = await session.pipeline((p) => {
    for (const contactId of contactIds) p.zrange(keys.contactTurns(contactId), 0, 0, { rev: true });
  });
  return replies.map((r) => (Array.isArray(r) && typeof r[0] === 'string' ? r[0] : null));
}

/** Waits for a turn's record (a duplicate waits for the turn it belongs to); null if it has not been written by `deadline`. */
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
