import { LedgerRowSchema, OutboxEntrySchema, type LedgerRow, type OutboxEntry } from '../outbox-entry.js';
import type { ConditionalWrites } from './conditional-writes.js';
import { DUE_INDEX_KEY, tenantKeys } from './keys.js';
import { parseJson, type RedisSession } from './redis-session.js';

/**
 * The outbox store: the owner of an outbox entry (`outbox(id)`, the JSON `OutboxEntry`), the
 * tenant's pending entries (`outboxPending`, scored by when they became pending, ms), each entry's
 * per-action ledger (`ledger(id)`, a hash: field = action id, value = a JSON `LedgerRow`) and the
 * delivery lease beside the entry, and of the parsing of their replies. Every reader of delivery
 * state — the delivery itself, the dashboard, a re-drive — reads an entry and its ledger through
 * `queueDeliveryRead` and parses them with `parseDelivery`, so none can disagree with another.
 *
 * Here, in core/, because the due-work index (core/storage/due-index.ts) reads the pending set
 * in its reschedule script. The multi-structure atomic scripts (the commit, a decided pinned row,
 * an alert, the ledger's transition, a delivery's close, a contact's deletion) take the keys from
 * `outboxKeys` — and queue an entry through `queueOutboxEntry` — so they build none of them.
 */

/** The outbox keys a multi-structure script needs for a tenant. */
export interface OutboxKeys {
  /** One entry (a turn's, a pinned row's, a notice's, an alert's). */
  entry: (entryId: string) => string;
  /** The tenant's entries not yet settled, scored by when they became pending (ms): the sweeper's and the due index's. */
  pending: string;
  /** One entry's ledger hash. */
  ledger: (entryId: string) => string;
  /** One entry's delivery lease (outbox/deliver-entry.ts): beside the entry, under the tenant prefix. */
  lease: (entryId: string) => string;
}

export function outboxKeys(tenantId: string): OutboxKeys {
  const keys = tenantKeys(tenantId);
  return {
    entry: keys.outbox,
    pending: keys.outboxPending,
    ledger: keys.ledger,
    lease: (entryId) => `${keys.outbox(entryId)}:lease`,
  };
}

/**
 * Queues an entry into a caller's atomic script: the entry (with its TTL) and its place in the
 * pending set, scored `pendingSinceMs`. The caller lowers the tenant's due time in the same script
 * (core/storage/due-index.ts `queueDue`).
 */
export function queueOutboxEntry(
  w: ConditionalWrites,
  tenantId: string,
  entryId: string,
  entry: OutboxEntry,
  ttlSeconds: number,
  pendingSinceMs: number,
): void {
  const keys = outboxKeys(tenantId);
  w.call('SET', keys.entry(entryId), JSON.stringify(entry), 'EX', ttlSeconds);
  w.call('ZADD', keys.pending, pendingSinceMs, entryId);
}

export function parseLedgerRow(raw: unknown): LedgerRow | null {
  if (raw == null || raw === '') return null;
  const parsed = LedgerRowSchema.safeParse(parseJson(raw));
  return parsed.success ? parsed.data : null;
}

/** HGETALL's reply without automatic deserialisation is a flat [field, value, …] array. */
export function ledgerRowsFromReply(reply: unknown): Map<string, LedgerRow> {
  const rows = new Map<string, LedgerRow>();
  const put = (field: unknown, value: unknown) => {
    const row = parseLedgerRow(value);
    if (typeof field === 'string' && row) rows.set(field, row);
  };
  if (Array.isArray(reply)) {
    for (let i = 0; i + 1 < reply.length; i += 2) put(reply[i], reply[i + 1]);
  } else if (reply && typeof reply === 'object') {
    for (const [field, value] of Object.entries(reply))
      put(field, typeof value === 'string' ? value : JSON.stringify(value));
  }
  return rows;
}

/**
 * A stored entry: whether the key held anything, its parsed JSON (null when gone or not JSON) and
 * the entry, if it matches the schema (present without an entry: unreadable).
 */
export interface StoredEntry {
  present: boolean;
  raw: unknown;
  entry: OutboxEntry | null;
}

export function parseOutboxEntry(reply: unknown): StoredEntry {
  if (reply == null) return { present: false, raw: null, entry: null };
  const raw = parseJson(reply);
  const parsed = OutboxEntrySchema.safeParse(raw);
  return { present: true, raw, entry: parsed.success ? parsed.data : null };
}

type Pipeline = Parameters<Parameters<RedisSession['pipeline']>[0]>[0];

/** Queues the read of one entry and its whole ledger (two replies, parsed by `parseDelivery`). */
export function queueDeliveryRead(p: Pipeline, tenantId: string, entryId: string): void {
  const keys = outboxKeys(tenantId);
  p.get(keys.entry(entryId));
  p.hgetall(keys.ledger(entryId));
}

/** The two replies `queueDeliveryRead` queued: the stored entry and its ledger rows. */
export function parseDelivery(rawEntry: unknown, rawLedger: unknown): StoredEntry & { rows: Map<string, LedgerRow> } {
  return { ...parseOutboxEntry(rawEntry), rows: ledgerRowsFromReply(rawLedger) };
}

/** Every row of one entry's ledger (one round trip). */
export async function readLedger(ref: {
  session: RedisSession;
  tenantId: string;
  turnId: string;
}): Promise<Map<string, LedgerRow>> {
  const reply = await ref.session.one((r) => r.hgetall(outboxKeys(ref.tenantId).ledger(ref.turnId)));
  return ledgerRowsFromReply(reply);
}

/** An entry and one action's ledger row (one round trip), for a re-drive. */
export async function readEntryAction(
  session: RedisSession,
  tenantId: string,
  entryId: string,
  actionId: string,
): Promise<{ entry: OutboxEntry | null; row: LedgerRow | null }> {
  const keys = outboxKeys(tenantId);
  const [rawEntry, rawRow] = await session.pipeline((p) => {
    p.get(keys.entry(entryId));
    p.hget(keys.ledger(entryId), actionId);
  });
  return { entry: parseOutboxEntry(rawEntry).entry, row: parseLedgerRow(rawRow) };
}

/** The current ledger row of each (entry, action) (one round trip), in order; null where there is none. */
export async function readLedgerRows(
  session: RedisSession,
  tenantId: string,
  refs: readonly { entryId: string; actionId: string }[],
): Promise<(LedgerRow | null)[]> {
  const keys = outboxKeys(tenantId);
  const rows = await session.pipeline((p) => {
    for (const ref of refs) p.hget(keys.ledger(ref.entryId), ref.actionId);
  });
  return rows.map(parseLedgerRow);
}

/**
 * A re-drive's first step, in one MULTI: the entry back to pending (its TTL kept), listed in the
 * pending set again at `nowMs`, and the tenant's due time lowered to `dueAtMs`.
 */
export async function reopenOutboxEntry(
  session: RedisSession,
  tenantId: string,
  entryId: string,
  entry: OutboxEntry,
  nowMs: number,
  dueAtMs: number,
): Promise<void> {
  const keys = outboxKeys(tenantId);
  await session.multi((m) => {
    m.set(keys.entry(entryId), JSON.stringify({ ...entry, state: 'pending' } satisfies OutboxEntry), {
      keepTtl: true,
    });
    m.zadd(keys.pending, { score: nowMs, member: entryId });
    m.zadd(DUE_INDEX_KEY, { lt: true }, { score: dueAtMs, member: tenantId });
  });
}

/** Whether an entry still waits in the pending set (queued into a caller's pipeline: one reply, see `isPendingReply`). */
export function queuePendingCheck(p: Pipeline, tenantId: string, entryId: string): void {
  p.zscore(outboxKeys(tenantId).pending, entryId);
}

export function isPendingReply(reply: unknown): boolean {
  return reply !== null && reply !== undefined;
}

/**
 * Each tenant's entries pending since before `cutoffMs` (at most `limit` each), in the order of
 * `tenantIds`: one round trip for all of them.
 */
export async function stalePendingEntries(
  session: RedisSession,
  tenantIds: readonly string[],
  cutoffMs: number,
  limit: number,
): Promise<string[][]> {
  const replies = await session.pipeline((p) => {
    for (const tenantId of tenantIds)
      p.zrange(outboxKeys(tenantId).pending, '-inf', cutoffMs, { byScore: true, offset: 0, count: limit });
  });
  return tenantIds.map((_, i) =>
    (Array.isArray(replies[i]) ? (replies[i] as unknown[]) : []).filter((id): id is string => typeof id === 'string'),
  );
}

/** Moves still-pending entries' scores to `nowMs` (ZADD XX: never lists one that settled meanwhile). One round trip. */
export async function touchPendingEntries(
  session: RedisSession,
  entries: readonly { tenantId: string; entryId: string }[],
  nowMs: number,
): Promise<void> {
  if (!entries.length) return;
  await session.pipeline((p) => {
    for (const { tenantId, entryId } of entries)
      p.zadd(outboxKeys(tenantId).pending, { xx: true }, { score: nowMs, member: entryId });
  });
}
