import type { TurnRecord } from '../core/turn-record.js';
import { parseTurnRecord, queueTurnRecord, turnRecordKeys } from '../core/storage/turn-records.js';
import type { RedisSession } from '../core/storage/redis-session.js';
import { retainedTtl, TTL } from '../core/storage/keys.js';
import { queueLeaveReplyOrder } from '../core/storage/reply-order.js';
import type { HistoryEntry } from '../core/history-entry.js';
import type { OutboxEntry } from '../core/outbox-entry.js';
import { queuePinnedRow } from '../core/storage/pinned-rows.js';
import { ConditionalWrites } from '../core/storage/conditional-writes.js';
import { queueTurnMetrics } from '../core/storage/turn-metrics.js';
import { queueHandoffIndex } from '../core/storage/handoffs.js';
import { queueClaimClosed } from '../core/storage/claims.js';
import { queueHandoff, queueHistory } from '../core/storage/contact-state.js';
import type { PinnedTerms } from '../core/pinned-terms.js';
import type { OutboxPublisher } from './publisher.js';
import { outboxDueAt, queueDue } from '../core/storage/due-index.js';
import { isPendingReply, queueOutboxEntry, queuePendingCheck } from '../core/storage/outbox-store.js';

export interface CommitInput {
  record: TurnRecord;
  entry: OutboxEntry | null;
  history: HistoryEntry[];
  historyLimit: number;
  /** Set when the turn escalated: the model stays silent for this contact until then. */
  handoffUntil: string | null;
  /** Confirmation / approval rows pinning gated actions, created with the turn. */
  pinned: PinnedTerms[];
  /** The tenant's retention (days): every key written here that holds the contact's words expires by then. */
  retentionDays?: number;
  /** A message whose turn delivers nothing: it leaves the contact's reply order in the same write. */
  releaseSequence?: { contactId: string; member: string };
}

/**
 * Writes the finished turn in one atomic step: the record, its outbox entry, pinned rows, the
 * conversation history, the turn log. A crash before it leaves nothing; after it, everything.
 * The record key is the commit's own claim: if a record for this turn exists (another run of the
 * same turn — a deferred turn's background run and its finish-turn rerun — committed first),
 * nothing is written and this returns false. Duplicates wait for the record key, so they see
 * the turn only once it is complete.
 */
export async function writeTurnCommit(session: RedisSession, input: CommitInput): Promise<boolean> {
  const { record, entry } = input;
  // The record key is the script's guard: a turn is committed once.
  const w = new ConditionalWrites(turnRecordKeys(record.tenantId).record(record.turnId));
  const ttl = (seconds: number) => retainedTtl(seconds, input.retentionDays);
  // The record, the contact's turn index and the tenant's log (core/storage/turn-records.ts).
  queueTurnRecord(w, record, ttl(TTL.turnSeconds));
  queueHistory(w, record.tenantId, record.contactId, input.history, input.historyLimit, ttl(TTL.historySeconds));
  // The turn is no longer open: the sweeper has nothing to finish.
  queueClaimClosed(w, record.tenantId, record.turnId);
  if (entry) {
    queueOutboxEntry(w, record.tenantId, record.turnId, entry, ttl(TTL.outboxSeconds), Date.parse(entry.createdAt));
    queueDue(w, record.tenantId, outboxDueAt(Date.parse(entry.createdAt)));
  }
  if (input.releaseSequence)
    queueLeaveReplyOrder(w, record.tenantId, input.releaseSequence.contactId, input.releaseSequence.member);
  for (const terms of input.pinned) queuePinnedRow(w, terms, Date.now(), input.retentionDays);
  if (input.handoffUntil) {
    queueHandoff(w, record.tenantId, record.contactId, input.handoffUntil);
    queueHandoffIndex(w, record.tenantId, record.contactId, Date.parse(input.handoffUntil));
  }
  // Health's hourly counts, in the same script: a turn is counted once, when its record is written.
  queueTurnMetrics(w, record);
  const written = await session.one((r) => r.eval(w.script, w.keys, w.argv));
  return Number(written) === 1;
}

/**
 * The turn as it was committed, for a run whose own commit wrote nothing (`writeTurnCommit` false):
 * its stored record and whether its outbox entry still waits for delivery. One round trip. That
 * run may be this very run — its script executed but the answer came after the client's timeout
 * (the turn then failed and its error commit found the record), or the answer was lost and the
 * client's retry found the record — so the stored record is the turn's truth, and its entry may
 * never have been handed to QStash.
 */
export async function readCommittedTurn(
  session: RedisSession,
  tenantId: string,
  turnId: string,
): Promise<{ record: TurnRecord | null; pending: boolean }> {
  const [raw, score] = await session.pipeline((p) => {
    p.get(turnRecordKeys(tenantId).record(turnId));
    queuePendingCheck(p, tenantId, turnId);
  });
  const record = parseTurnRecord(raw);
  return {
    record: record && record.tenantId === tenantId && record.turnId === turnId ? record : null,
    pending: isPendingReply(score),
  };
}

/**
 * Hands a committed entry to QStash. A failure is recorded, not thrown: the entry stays in the
 * pending set and the sweeper publishes it again, so nothing committed is lost.
 */
export async function publishCommitted(
  publisher: OutboxPublisher,
  entry: Pick<OutboxEntry, 'tenantId' | 'turnId'>,
): Promise<{ published: boolean; error?: string }> {
  try {
    await publisher.publish({ tenantId: entry.tenantId, turnId: entry.turnId });
    return { published: true };
  } catch (err) {
    return { published: false, error: err instanceof Error ? err.message : String(err) };
  }
}
