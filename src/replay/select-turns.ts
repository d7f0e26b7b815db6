import type { RedisSession } from '../../core/storage/redis-session.js';
import { loadTurnRecords, turnIdsByTime } from '../../core/storage/turn-records.js';
import type { TurnRecord } from '../../core/turn-record.js';

/** Which recorded turns a replay takes: these ids, or the newest `limit` that match the rest. */
export interface TurnFilter {
  ids?: string[];
  limit: number;
  decision?: string;
  contact?: string;
  /** ISO instants: startedAt >= since, startedAt < until. */
  since?: string;
  until?: string;
}

/** Records read per page while looking for matches, and at most in all (a filter that matches little stops there). */
const PAGE = 200;
export const MAX_SCANNED = 5000;

const matches = (filter: TurnFilter) => (r: TurnRecord) =>
  (!filter.decision || r.decision === filter.decision) &&
  (!filter.contact || r.contactId === filter.contact) &&
  (!filter.since || r.startedAt >= filter.since) &&
  (!filter.until || r.startedAt < filter.until);

/**
 * The tenant's recorded turns for a replay, oldest first: the given ids, or the newest `limit`
 * turns that match the filter — read newest first from the contact's own index when a contact
 * is named (else the tenant's turn log), only within the time range (both are scored by the
 * turn's start), a page at a time until `limit` match or `MAX_SCANNED` were read. Reads only
 * under the tenant's key prefix, and drops a record naming another tenant, so a replay can never
 * see another tenant's turn.
 */
export async function selectTurns(session: RedisSession, tenantId: string, filter: TurnFilter): Promise<TurnRecord[]> {
  const keep = matches(filter);
  const oldestFirst = (records: TurnRecord[]) => records.sort((a, b) => a.startedAt.localeCompare(b.startedAt));
  if (filter.ids) return oldestFirst((await loadTurnRecords(session, tenantId, filter.ids)).filter(keep));
  const range = {
    ...(filter.contact ? { contactId: filter.contact } : {}),
    ...(filter.until ? { untilMs: Date.parse(filter.until) } : {}),
    ...(filter.since ? { sinceMs: Date.parse(filter.since) } : {}),
  };
  const found: TurnRecord[] = [];
  for (let offset = 0; found.length < filter.limit && offset < MAX_SCANNED; offset += PAGE) {
    const ids = await turnIdsByTime(session, tenantId, { ...range, offset, count: PAGE });
    found.push(...(await loadTurnRecords(session, tenantId, ids)).filter(keep));
    if (ids.length < PAGE) break;
  }
  return oldestFirst(found).slice(-filter.limit);
}
