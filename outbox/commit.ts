import type { TurnRecord } from '../src/domain/turn-record.js';
import type { RedisSession } from '../src/storage/redis-session.js';
import { TTL, tenantKeys } from '../src/storage/keys.js';
import type { HistoryEntry } from '../src/turn/prompt.js';
import type { OutboxEntry } from './outbox-entry.js';
import { queuePinnedRow } from '../src/approvals/pinned-store.js';
import type { PinnedTerms } from '../src/approvals/pinned-terms.js';
import type { OutboxPublisher } from './publisher.js';

const TURN_LOG_LIMIT = 1000;

export interface CommitInput {
  record: TurnRecord;
  entry: OutboxEntry | null;
  history: HistoryEntry[];
  historyLimit: number;
  /** Set when the turn escalated: the model stays silent for this contact until then. */
  handoffUntil: string | null;
  /** Confirmation / approval rows pinning gated actions, created with the turn. */
  pinned: PinnedTerms[];
}

/**
 * Writes the finished turn in one atomic MULTI: the record, its outbox entry, the conversation
 * history and the turn log. A crash before it leaves nothing; after it, everything. The record
 * key is also what duplicates wait for, so they see the turn only once it is complete.
 */
export async function commitTurn(session: RedisSession, input: CommitInput): Promise<void> {
  const { record, entry } = input;
  const keys = tenantKeys(record.tenantId);
  await session.multi((m) => {
    m.set(keys.turn(record.turnId), JSON.stringify(record), { ex: TTL.turnSeconds });
    m.zadd(keys.turnLog, { score: Date.parse(record.startedAt), member: record.turnId });
    m.zremrangebyrank(keys.turnLog, 0, -TURN_LOG_LIMIT - 1);
    if (input.history.length) {
      const historyKey = keys.history(record.contactId);
      m.rpush(historyKey, ...input.history.map((h) => JSON.stringify(h)));
      m.ltrim(historyKey, -Math.max(1, input.historyLimit * 2), -1);
      m.expire(historyKey, TTL.historySeconds);
    }
    if (entry) {
      m.set(keys.outbox(record.turnId), JSON.stringify(entry), { ex: TTL.outboxSeconds });
      m.zadd(keys.outboxPending, { score: Date.parse(entry.createdAt), member: record.turnId });
    }
    for (const terms of input.pinned) queuePinnedRow(m, terms);
    if (input.handoffUntil) {
      const seconds = Math.max(1, Math.ceil((Date.parse(input.handoffUntil) - Date.now()) / 1000));
      m.set(keys.handoff(record.contactId), input.handoffUntil, { ex: seconds });
    }
  });
}

/**
 * Hands a committed entry to QStash. A failure is recorded, not thrown: the entry stays in the
 * pending set and the sweeper publishes it again, so nothing committed is lost.
 */
export async function publishCommitted(publisher: OutboxPublisher, entry: OutboxEntry): Promise<{ published: boolean; error?: string }> {
  try {
    await publisher.publish({ tenantId: entry.tenantId, turnId: entry.turnId });
    return { published: true };
  } catch (err) {
    return { published: false, error: err instanceof Error ? err.message : String(err) };
  }
}
