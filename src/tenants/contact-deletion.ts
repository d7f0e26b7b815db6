import { claimKeys } from '../../core/storage/claims.js';
import { contactStateKeys } from '../../core/storage/contact-state.js';
import { turnRecordKeys } from '../../core/storage/turn-records.js';
import type { RedisSession } from '../../core/storage/redis-session.js';
import { outboxKeys } from '../../core/storage/outbox-store.js';
import { pinnedKeys } from '../../core/storage/pinned-rows.js';
import { queueDropContactDeadLetters } from '../../core/storage/dead-letter-list.js';
import { handoffIndexKeys } from '../../core/storage/handoffs.js';
import { rateLimitKeys } from '../../guardrails/rate-limit.js';
import { scanPrefix } from './provisioning.js';
import { contactPageKeys } from './page-tokens.js';

/**
 * A contact's data deleted on request (the tenant's API, or Meta's data-deletion callback): the
 * contact's history and handoff state, every turn record, outbox entry, ledger and pending job
 * of the contact's turns, every pinned row (confirmations, approvals) and its notice, the
 * pending-call index, the rate-limit windows, and the contact's dead letters. Found through the
 * per-contact indexes the commit keeps (`contactTurns`, `contactRows`). What is left of the
 * contact afterwards is nothing with their words: claims (a hash naming a turn id) expire by
 * themselves.
 */
export interface ContactDeletion {
  turns: number;
  rows: number;
  keys: number;
  deadLetters: number;
}

export async function deleteContactData(
  session: RedisSession,
  tenantId: string,
  contactId: string,
): Promise<ContactDeletion> {
  const claims = claimKeys(tenantId);
  const contact = contactStateKeys(tenantId, contactId);
  const turns = turnRecordKeys(tenantId);
  const outbox = outboxKeys(tenantId);
  const pinned = pinnedKeys(tenantId);
  const [turnIds, rowIds] = (await session.pipeline((p) => {
    p.zrange(turns.contactTurns(contactId), 0, -1);
    p.smembers(pinned.contactRows(contactId));
  })) as [string[], string[]];
  const keys = [
    contact.history,
    contact.handoff,
    contactPageKeys(tenantId).contactPage(contactId),
    turns.contactTurns(contactId),
    pinned.contactRows(contactId),
    ...turnIds.flatMap((t) => [turns.record(t), outbox.entry(t), outbox.ledger(t), outbox.lease(t), claims.job(t)]),
    ...rowIds.flatMap((r) => [
      pinned.terms(r),
      pinned.status(r),
      outbox.entry(r),
      outbox.ledger(r),
      outbox.entry(`${r}.notice`),
      outbox.ledger(`${r}.notice`),
    ]),
    ...(await scanPrefix(session, pinned.pendingCallPrefix(contactId))),
    ...(await scanPrefix(session, `${rateLimitKeys(tenantId).contact(contactId)}:`)),
  ];
  const entryIds = [...turnIds, ...rowIds, ...rowIds.map((r) => `${r}.notice`)];
  const results = await session.pipeline((p) => {
    for (let i = 0; i < keys.length; i += 500) p.del(...keys.slice(i, i + 500));
    if (turnIds.length) {
      p.zrem(turns.log, ...turnIds);
      p.zrem(claims.openClaims, ...turnIds);
    }
    if (entryIds.length) p.zrem(outbox.pending, ...entryIds);
    if (rowIds.length) p.zrem(pinned.approvalQueue, ...rowIds);
    p.zrem(handoffIndexKeys(tenantId).index, contactId);
    // Last: its reply is the count of the contact's dead letters that went.
    queueDropContactDeadLetters(p, tenantId, contactId);
  });
  const deletedKeys = results.slice(0, Math.ceil(keys.length / 500)).reduce<number>((n, r) => n + Number(r), 0);
  return {
    turns: turnIds.length,
    rows: rowIds.length,
    keys: deletedKeys,
    deadLetters: Number(results[results.length - 1]),
  };
}
