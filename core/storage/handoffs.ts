import type { ConditionalWrites } from './conditional-writes.js';
import { contactStateKeys } from './contact-state.js';
import { tenantKeys } from './keys.js';
import type { RedisSession } from './redis-session.js';

/**
 * The handoff inbox's index (`handoffIndex`): the contacts an escalation handed to a person,
 * scored by when their silence ends (ms). The silence itself is the `handoff(contact)` key the
 * commit sets with its TTL (owned by the contact-state store, core/storage/contact-state.ts); this
 * index only lets the dashboard list them without a SCAN. A member is shown only while its silence
 * key still exists (a release through any route, or the key's expiry, ends it), and expired
 * members are trimmed on every write, so the set holds no more than the contacts waiting now.
 */

/** The index key a multi-structure script needs for a tenant (a contact's deletion takes the contact off it). */
export function handoffIndexKeys(tenantId: string): { index: string } {
  return { index: tenantKeys(tenantId).handoffIndex };
}

/** Queues the index entry into the commit's atomic script, beside the silence key it describes. */
export function queueHandoffIndex(w: ConditionalWrites, tenantId: string, contactId: string, untilMs: number): void {
  const key = tenantKeys(tenantId).handoffIndex;
  w.call('ZREMRANGEBYSCORE', key, '-inf', `(${Date.now()}`);
  w.call('ZADD', key, untilMs, contactId);
}

export interface WaitingContact {
  contactId: string;
  /** When the silence ends by itself (ISO), as the commit stored it. */
  until: string;
}

/** The contacts waiting for a person now, the soonest-ending first (two round trips). */
export async function listWaitingContacts(
  session: RedisSession,
  tenantId: string,
  nowMs: number,
  limit = 200,
): Promise<WaitingContact[]> {
  const keys = tenantKeys(tenantId);
  const members = (await session.one((r) =>
    r.zrange(keys.handoffIndex, nowMs, '+inf', { byScore: true, offset: 0, count: limit }),
  )) as string[];
  if (!members.length) return [];
  const untils = await session.pipeline((p) => {
    for (const contactId of members) p.get(contactStateKeys(tenantId, contactId).handoff);
  });
  return members.flatMap((contactId, i) => {
    const until = untils[i];
    return typeof until === 'string' && until ? [{ contactId, until }] : [];
  });
}

/** When the contact's silence ends (ISO), or null when they are not with a person. */
export async function handoffUntil(session: RedisSession, tenantId: string, contactId: string): Promise<string | null> {
  const until = await session.one((r) => r.get(contactStateKeys(tenantId, contactId).handoff));
  return typeof until === 'string' && until ? until : null;
}

/** Ends the contact's silence and takes them off the inbox, atomically; true when there was one. */
export async function releaseHandoff(session: RedisSession, tenantId: string, contactId: string): Promise<boolean> {
  const keys = tenantKeys(tenantId);
  const [deleted] = await session.multi((m) => {
    m.del(contactStateKeys(tenantId, contactId).handoff);
    m.zrem(keys.handoffIndex, contactId);
  });
  return Number(deleted) > 0;
}
