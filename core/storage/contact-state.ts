import type { HistoryEntry } from '../history-entry.js';
import type { ConditionalWrites } from './conditional-writes.js';
import { tenantKeys } from './keys.js';
import { parseJson, type RedisSession } from './redis-session.js';
import { turnRecordKeys } from './turn-records.js';

/**
 * The contact-state store: the owner of a contact's conversation history (`history(contact)`, a
 * list of JSON lines) and handoff state (`handoff(contact)`, the ISO time the model's silence ends,
 * with a TTL to match), and of the parsing of their replies. The commit writes them through
 * `queueHistory` and `queueHandoff` in its one atomic script; the claim's script reads them in the
 * same round trip as the claim (core/storage/claims.ts) and a contact's deletion deletes them, both
 * with the keys from `contactStateKeys`; the handoff inbox (core/storage/handoffs.ts) reads and
 * ends a silence through the same keys.
 */

/** The keys a multi-structure script (the claim, a deletion, the handoff inbox) needs for one contact. */
export function contactStateKeys(tenantId: string, contactId: string): { history: string; handoff: string } {
  const keys = tenantKeys(tenantId);
  return { history: keys.history(contactId), handoff: keys.handoff(contactId) };
}

/** The stored history list as the model may see it: contact and agent lines only, anything else dropped. */
export function parseHistory(raw: unknown): HistoryEntry[] {
  return (Array.isArray(raw) ? raw : [])
    .map((h) => parseJson(h) as HistoryEntry | null)
    .filter(
      (h): h is HistoryEntry => !!h && (h.role === 'contact' || h.role === 'agent') && typeof h.text === 'string',
    );
}

/**
 * Queues the turn's history lines into the commit's atomic script: appended, the list trimmed to
 * the last `historyLimit` exchanges (two lines each, at least one line), its TTL renewed. Nothing
 * when there are no lines.
 */
export function queueHistory(
  w: ConditionalWrites,
  tenantId: string,
  contactId: string,
  history: readonly HistoryEntry[],
  historyLimit: number,
  ttlSeconds: number,
): void {
  if (!history.length) return;
  const historyKey = contactStateKeys(tenantId, contactId).history;
  w.call('RPUSH', historyKey, ...history.map((h) => JSON.stringify(h)));
  w.call('LTRIM', historyKey, -Math.max(1, historyLimit * 2), -1);
  w.call('EXPIRE', historyKey, ttlSeconds);
}

/**
 * Queues the contact's silence until `untilIso` into the commit's atomic script, expiring then (at
 * least a second from now). The inbox's index entry is queued beside it (`queueHandoffIndex`).
 */
export function queueHandoff(w: ConditionalWrites, tenantId: string, contactId: string, untilIso: string): void {
  const seconds = Math.max(1, Math.ceil((Date.parse(untilIso) - Date.now()) / 1000));
  w.call('SET', contactStateKeys(tenantId, contactId).handoff, untilIso, 'EX', seconds);
}

/**
 * What the finish-turn job needs, in one round trip: whether the turn is done (its record exists),
 * and the contact's history and handoff state for a rerun — the history read as the first run's
 * claim reads it, so a line of any other role never reaches the model.
 */
export async function loadRerunInputs(
  session: RedisSession,
  tenantId: string,
  turnId: string,
  contactId: string,
): Promise<{ done: boolean; history: HistoryEntry[]; inHandoffUntil: string | null }> {
  const [record, history, handoff] = await session.pipeline((p) => {
    p.get(turnRecordKeys(tenantId).record(turnId));
    const keys = contactStateKeys(tenantId, contactId);
    p.lrange(keys.history, 0, -1);
    p.get(keys.handoff);
  });
  return {
    done: record != null,
    history: parseHistory(history),
    inHandoffUntil: typeof handoff === 'string' ? handoff : null,
  };
}
