import type { RedisSession } from '../../../core/storage/redis-session.js';
import { loadTurnRecords, newestTurnIds } from '../../../core/storage/turn-records.js';
import type { TurnRecord } from '../../../core/turn-record.js';
import { readDeliveries, type EntryDelivery } from '../../../outbox/delivery-state.js';
import { turnDeliveries, type TurnDelivery } from './turn-delivery.js';

export { deliveryStateOf, type DeliveryState, type EntryDelivery } from '../../../outbox/delivery-state.js';

/**
 * The turn log as the dashboard reads it: always under the session's tenant prefix, so a turn id
 * of another tenant is simply not found. Records are the committed `TurnRecord`s (JSON).
 */
const TURN_ID = /^[A-Za-z0-9_.:@-]{1,200}$/;
/** How many of the newest turns a text search reads (the log keeps 1,000). */
export const SEARCH_WINDOW = 500;

export { loadTurnRecords, newestTurnIds } from '../../../core/storage/turn-records.js';

export async function loadTurn(redis: RedisSession, tenantId: string, turnId: string): Promise<TurnRecord | null> {
  if (!TURN_ID.test(turnId)) return null;
  return (await loadTurnRecords(redis, tenantId, [turnId]))[0] ?? null;
}

export interface TurnQuery {
  /** Matches the contact id exactly, or any part of the inbound text, reply or decision reason. */
  q: string;
  decision: '' | TurnRecord['decision'];
  /** 'not-arrived': only turns with an action that is dead, unknown or retrying. */
  delivery: '' | 'not-arrived';
  offset: number;
  limit: number;
}

/**
 * One page of the log, newest first, filtered, with each shown turn's delivery line. Without a
 * filter it reads only the page; the delivery filter reads the delivery of the whole search window.
 */
export async function searchTurns(
  redis: RedisSession,
  tenantId: string,
  query: TurnQuery,
): Promise<{ turns: TurnRecord[]; more: boolean; total: number; delivery: Map<string, TurnDelivery> }> {
  if (!query.q && !query.decision && !query.delivery) {
    const { ids, total } = await newestTurnIds(redis, tenantId, query.limit + 1, query.offset);
    const turns = await loadTurnRecords(redis, tenantId, ids.slice(0, query.limit));
    return { turns, more: ids.length > query.limit, total, delivery: await turnDeliveries(redis, tenantId, turns) };
  }
  const { ids, total } = await newestTurnIds(redis, tenantId, SEARCH_WINDOW);
  const needle = query.q.toLowerCase();
  const all = await loadTurnRecords(redis, tenantId, ids);
  const windowDelivery = query.delivery ? await turnDeliveries(redis, tenantId, all) : null;
  const hits = all.filter((t) => {
    if (windowDelivery && !windowDelivery.get(t.turnId)?.notArrived) return false;
    if (query.decision && t.decision !== query.decision) return false;
    if (!needle) return true;
    return (
      t.contactId === query.q ||
      [t.inbound.text ?? '', t.reply.text, t.decisionReason, t.turnId].some((s) => s.toLowerCase().includes(needle))
    );
  });
  const turns = hits.slice(query.offset, query.offset + query.limit);
  return {
    turns,
    more: hits.length > query.offset + query.limit,
    total,
    delivery: windowDelivery ?? (await turnDeliveries(redis, tenantId, turns)),
  };
}

/** Outbox entries (a turn's own, and those its approvals created) with each action's ledger row, read through the outbox's reader. */
export async function loadDeliveries(
  redis: RedisSession,
  tenantId: string,
  entryIds: string[],
): Promise<EntryDelivery[]> {
  return readDeliveries(
    redis,
    tenantId,
    entryIds.filter((id) => TURN_ID.test(id)),
  );
}
