import type { RedisSession } from '../../../core/storage/redis-session.js';
import type { TurnRecord } from '../../../core/turn-record.js';
import { deliveryStateOf, readDeliveries, type DeliveryState } from '../../../outbox/delivery-state.js';

/**
 * What became of a turn's committed actions, in one line of the Turns list: a count per delivery
 * state over every entry the turn owns (its own, and those its approvals or its confirmation
 * created). Read through the outbox's own reader (outbox/delivery-state.ts), so the list cannot
 * disagree with the turn page or with delivery.
 */
export interface TurnDelivery {
  /** States in the order they are shown; only those with at least one action. */
  counts: { state: DeliveryState; n: number }[];
  /** Committed actions over all the turn's entries. */
  total: number;
  /** At least one action is dead, unknown or retrying: the contact may be waiting for it. */
  notArrived: boolean;
}

const SHOWN_ORDER: readonly DeliveryState[] = ['dead', 'unknown', 'retrying', 'in flight', 'pending', 'performed'];
/** "Did not arrive": refused for good, maybe never sent, or refused for now and waiting for a retry. */
export const NOT_ARRIVED: ReadonlySet<DeliveryState> = new Set(['dead', 'unknown', 'retrying']);

export function entryIdsOfTurn(turn: Pick<TurnRecord, 'turnId' | 'approvals' | 'pendingConfirmation'>): string[] {
  return [turn.turnId, ...turn.approvals, ...(turn.pendingConfirmation ? [turn.pendingConfirmation] : [])];
}

/** Each turn's delivery line, keyed by turn id (one round trip for all of them). */
export async function turnDeliveries(
  session: RedisSession,
  tenantId: string,
  turns: readonly Pick<TurnRecord, 'turnId' | 'approvals' | 'pendingConfirmation'>[],
): Promise<Map<string, TurnDelivery>> {
  const owner = new Map<string, string>();
  for (const t of turns) for (const id of entryIdsOfTurn(t)) if (!owner.has(id)) owner.set(id, t.turnId);
  const deliveries = await readDeliveries(session, tenantId, [...owner.keys()]);
  const tally = new Map<string, Map<DeliveryState, number>>();
  for (const d of deliveries) {
    const turnId = owner.get(d.entry.turnId);
    if (!turnId) continue;
    const counts = tally.get(turnId) ?? new Map<DeliveryState, number>();
    for (const a of d.entry.actions) {
      const state = deliveryStateOf(d.rows.get(a.id));
      counts.set(state, (counts.get(state) ?? 0) + 1);
    }
    tally.set(turnId, counts);
  }
  const out = new Map<string, TurnDelivery>();
  for (const t of turns) {
    const counts = tally.get(t.turnId) ?? new Map<DeliveryState, number>();
    const shown = SHOWN_ORDER.filter((s) => counts.has(s)).map((state) => ({ state, n: counts.get(state)! }));
    out.set(t.turnId, {
      counts: shown,
      total: shown.reduce((sum, c) => sum + c.n, 0),
      notArrived: shown.some((c) => NOT_ARRIVED.has(c.state)),
    });
  }
  return out;
}
