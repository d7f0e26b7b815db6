import type { LedgerRow, OutboxEntry } from '../core/outbox-entry.js';
import { parseDelivery, queueDeliveryRead } from '../core/storage/outbox-store.js';
import type { RedisSession } from '../core/storage/redis-session.js';

/**
 * What became of each committed action, read the way delivery reads it: the entry and its
 * ledger in one round trip, queued and parsed by the outbox store's own `queueDeliveryRead` and
 * `parseDelivery` (core/storage/outbox-store.ts) — the same two functions a delivery opens its
 * entry with. The dashboard reads delivery state only through here, so it cannot disagree with
 * the outbox.
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
  const raw = await session.pipeline((p) => {
    for (const id of entryIds) queueDeliveryRead(p, tenantId, id);
  });
  const out: EntryDelivery[] = [];
  for (let i = 0; i < entryIds.length; i++) {
    const { entry, rows } = parseDelivery(raw[2 * i], raw[2 * i + 1]);
    if (!entry || entry.tenantId !== tenantId) continue;
    out.push({ entry, rows });
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
