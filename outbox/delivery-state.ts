import { OutboxEntrySchema, type LedgerRow, type OutboxEntry } from '../core/outbox-entry.js';
import { tenantKeys } from '../core/storage/keys.js';
import { parseJson, type RedisSession } from '../core/storage/redis-session.js';
import { ledgerKey, ledgerRowsFromReply } from './ledger.js';

/**
 * What became of each committed action, read the way delivery reads it: the entry and its
 * ledger in one round trip, the ledger's HGETALL reply parsed by the ledger's own reader
 * (`ledgerRowsFromReply`: a flat [field, value, …] array without automatic deserialisation). The
 * dashboard reads delivery state only through here, so it cannot disagree with the outbox.
 */
export interface EntryDelivery {
  entry: OutboxEntry;
  rows: ReadonlyMap<string, LedgerRow>;
}

/** Outbox entries with each action's ledger row; an entry that is gone, unreadable or another tenant's is left out. */
export async function readDeliveries(
  session: RedisSession,
  tenantId: string,
  entryIds: readonly string[],
): Promise<EntryDelivery[]> {
  if (!entryIds.length) return [];
  const keys = tenantKeys(tenantId);
  const raw = await session.pipeline((p) => {
    for (const id of entryIds) {
      p.get(keys.outbox(id));
      p.hgetall(ledgerKey(tenantId, id));
    }
  });
  const out: EntryDelivery[] = [];
  for (let i = 0; i < entryIds.length; i++) {
    const entry = OutboxEntrySchema.safeParse(parseJson(raw[2 * i]));
    if (!entry.success || entry.data.tenantId !== tenantId) continue;
    out.push({ entry: entry.data, rows: ledgerRowsFromReply(raw[2 * i + 1]) });
  }
  return out;
}

/** What became of an action, in the words the dashboard shows. */
export type DeliveryState = 'pending' | 'retrying' | 'in flight' | 'performed' | 'unknown' | 'dead';

/** No row yet: not attempted. A pending row with attempts: retrying (the API said 429/5xx). */
export function deliveryStateOf(row: LedgerRow | null | undefined): DeliveryState {
  if (!row) return 'pending';
  switch (row.state) {
    case 'pending':
      return row.attempts > 0 ? 'retrying' : 'pending';
    case 'claimed':
      return 'in flight';
    case 'done':
      return 'performed';
    default:
      return row.state;
  }
}
