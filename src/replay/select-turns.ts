import type { RedisSession } from '../../core/storage/redis-session.js';
import type { TurnRecord } from '../../core/turn-record.js';
import { loadTurnRecords, newestTurnIds } from '../dashboard/data/turns.js';

/** Which recorded turns a replay takes: these ids, or the newest `limit` narrowed by the rest. */
export interface TurnFilter {
  ids?: string[];
  limit: number;
  decision?: string;
  contact?: string;
  /** ISO instants: startedAt >= since, startedAt < until. */
  since?: string;
  until?: string;
}

/**
 * The tenant's recorded turns for a replay, oldest first. Reads only under the tenant's key
 * prefix, and drops a record naming another tenant, so a replay can never see another tenant's turn.
 */
export async function selectTurns(session: RedisSession, tenantId: string, filter: TurnFilter): Promise<TurnRecord[]> {
  const ids = filter.ids ?? (await newestTurnIds(session, tenantId, filter.limit)).ids;
  const records = await loadTurnRecords(session, tenantId, ids);
  return records
    .filter((r) => !filter.decision || r.decision === filter.decision)
    .filter((r) => !filter.contact || r.contactId === filter.contact)
    .filter((r) => !filter.since || r.startedAt >= filter.since)
    .filter((r) => !filter.until || r.startedAt < filter.until)
    .sort((a, b) => a.startedAt.localeCompare(b.startedAt));
}
