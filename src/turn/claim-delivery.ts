import { parseJson, type RedisSession } from '../../core/storage/redis-session.js';
import { TTL, tenantKeys } from '../../core/storage/keys.js';
import type { HistoryEntry } from '../../core/history-entry.js';

export type ClaimResult =
  | { claimed: true; history: HistoryEntry[]; inHandoffUntil: string | null }
  | { claimed: false; existingTurnId: string };

/**
 * Claims a delivery with SET NX and, in the same round trip, reads what the turn needs (history,
 * handoff state). A retried or concurrent duplicate loses the SET and learns the turn it belongs
 * to from the GET queued right after it.
 */
export async function claimDelivery(session: RedisSession, tenantId: string, messageKey: string, contactId: string, turnId: string): Promise<ClaimResult> {
  const keys = tenantKeys(tenantId);
  const [setResult, owner, history, handoff] = await session.pipeline((p) => {
    p.set(keys.claim(messageKey), turnId, { nx: true, ex: TTL.claimSeconds });
    p.get(keys.claim(messageKey));
    p.lrange(keys.history(contactId), 0, -1);
    p.get(keys.handoff(contactId));
  });
  // A claim that expired between the SET and the GET leaves no owner: treat it as a lost race
  // with nobody to wait for (the caller answers without a reply rather than waiting on "null").
  if (setResult !== 'OK') return { claimed: false, existingTurnId: typeof owner === 'string' ? owner : '' };
  const entries = (Array.isArray(history) ? history : [])
    .map((h) => parseJson(h) as HistoryEntry | null)
    .filter((h): h is HistoryEntry => !!h && (h.role === 'contact' || h.role === 'agent') && typeof h.text === 'string');
  return { claimed: true, history: entries, inHandoffUntil: typeof handoff === 'string' ? handoff : null };
}

/** Waits for the turn a duplicate belongs to; null if it has not finished by `deadline`. */
export async function awaitTurnRecord<T>(session: RedisSession, tenantId: string, turnId: string, deadline: number, parse: (raw: unknown) => T | null): Promise<T | null> {
  const key = tenantKeys(tenantId).turn(turnId);
  for (;;) {
    const raw = await session.one((r) => r.get(key));
    if (raw != null) return parse(parseJson(raw));
    if (Date.now() + 100 > deadline) return null;
    await new Promise((r) => setTimeout(r, 100));
  }
}
