import type { RedisSession } from '../../../core/storage/redis-session.js';
import { loadTurnRecords, turnIdsByTime } from '../../../core/storage/turn-records.js';
import type { TurnRecord } from '../../../core/turn-record.js';
import { readDeliveries, type EntryDelivery } from '../../../outbox/delivery-state.js';

/** How many turns one page of a contact's conversation shows. */
export const CONVERSATION_PAGE = 30;

export interface ConversationTurn {
  turn: TurnRecord;
  /** The outbox entries of this turn (its own, its approvals', its confirmation's) with their ledger rows. */
  deliveries: EntryDelivery[];
}

export interface Conversation {
  /** Oldest first, the way a conversation reads. */
  turns: ConversationTurn[];
  /** The start (ms) of the oldest turn shown, when older turns exist: the next page's `until`. */
  olderUntil: number | null;
}

/**
 * One contact's turns across time, read from the contact's own turn index under the session's
 * tenant prefix (a contact id of another tenant names a key that tenant's prefix never reaches),
 * with what became of each action: three round trips whatever the page size.
 */
export async function loadConversation(
  session: RedisSession,
  tenantId: string,
  contactId: string,
  untilMs?: number,
): Promise<Conversation> {
  const ids = await turnIdsByTime(session, tenantId, {
    contactId,
    ...(untilMs !== undefined ? { untilMs } : {}),
    offset: 0,
    count: CONVERSATION_PAGE + 1,
  });
  const records = (await loadTurnRecords(session, tenantId, ids.slice(0, CONVERSATION_PAGE))).filter(
    (t) => t.contactId === contactId,
  );
  const entryIds = records.flatMap((t) => [
    t.turnId,
    ...t.approvals,
    ...(t.pendingConfirmation ? [t.pendingConfirmation] : []),
  ]);
  const deliveries = await readDeliveries(session, tenantId, entryIds);
  const byEntry = new Map(deliveries.map((d) => [d.entry.turnId, d]));
  const turns = records.reverse().map((turn) => ({
    turn,
    deliveries: [turn.turnId, ...turn.approvals, ...(turn.pendingConfirmation ? [turn.pendingConfirmation] : [])]
      .map((id) => byEntry.get(id))
      .filter((d): d is EntryDelivery => d !== undefined),
  }));
  const oldest = turns[0]?.turn.startedAt;
  return { turns, olderUntil: ids.length > CONVERSATION_PAGE && oldest ? Date.parse(oldest) : null };
}
