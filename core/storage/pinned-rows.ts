import { PinnedTermsSchema, type PinnedTerms } from '../pinned-terms.js';
import type { ConditionalWrites } from './conditional-writes.js';
import { DUE_INDEX_KEY, retainedTtl, TTL, tenantKeys } from './keys.js';
import { parseJson, type RedisSession } from './redis-session.js';

/**
 * The pinned-row store: the owner of a confirmation's or approval's terms (`pinnedTerms(id)`,
 * written once), its status (`pinnedStatus(id)`, the only part that changes), the correction mark
 * beside the status, the contact's pending-call index (`pendingCall(contact, call digest)`: which
 * row owns a call), the tenant's approval queue (`approvalQueue`, scored by expiry) and each
 * contact's rows (`contactRows`), and of the parsing of their replies. The commit queues a row
 * through `queuePinnedRow`; the decision, supersede and correction scripts
 * (src/approvals/pinned-store.ts, correct-approval.ts), a contact's deletion and the due-work
 * index's reschedule script take the keys from `pinnedKeys`; everyone else reads through here.
 */

/** The pinned-row keys a multi-structure script needs for a tenant. */
export interface PinnedKeys {
  terms: (id: string) => string;
  status: (id: string) => string;
  /** `<original's status key>:corrected-by` = the correcting row's id, written once. */
  correction: (originalId: string) => string;
  pendingCall: (contactId: string, digest: string) => string;
  /** What every one of a contact's pending-call keys starts with (a deletion scans it). */
  pendingCallPrefix: (contactId: string) => string;
  approvalQueue: string;
  contactRows: (contactId: string) => string;
}

export function pinnedKeys(tenantId: string): PinnedKeys {
  const keys = tenantKeys(tenantId);
  return {
    terms: keys.pinnedTerms,
    status: keys.pinnedStatus,
    correction: (originalId) => `${keys.pinnedStatus(originalId)}:corrected-by`,
    pendingCall: keys.pendingCall,
    pendingCallPrefix: (contactId) => keys.pendingCall(contactId, '0'.repeat(64)).slice(0, -64),
    approvalQueue: keys.approvalQueue,
    contactRows: keys.contactRows,
  };
}

/**
 * Queues the row's creation inside the turn's commit: terms and status, both SET NX, and for each
 * call the contact's pending-call index (SET NX, until the row expires): the first row for a call
 * owns it, so a repeat of the call — a later turn, or a concurrent one — finds it, and a second
 * row that slipped in anyway cannot perform it (see the decision script).
 */
export function queuePinnedRow(
  w: ConditionalWrites,
  terms: PinnedTerms,
  now = Date.now(),
  retentionDays?: number,
): void {
  const keys = pinnedKeys(terms.tenantId);
  const ttl = retainedTtl(TTL.pinnedSeconds, retentionDays);
  // The contact's rows, so a deletion request reaches every one of them.
  w.call('SADD', keys.contactRows(terms.contactId), terms.id);
  w.call('EXPIRE', keys.contactRows(terms.contactId), ttl);
  const ttlMs = Math.max(1000, Date.parse(terms.expiresAt) - now);
  for (const digest of terms.callDigests ?? [])
    w.call('SET', keys.pendingCall(terms.contactId, digest), terms.id, 'NX', 'PX', ttlMs);
  w.call('SET', keys.terms(terms.id), JSON.stringify(terms), 'NX', 'EX', ttl);
  w.call('SET', keys.status(terms.id), 'pending', 'NX', 'EX', ttl);
  if (terms.kind === 'approval') {
    w.call('ZADD', keys.approvalQueue, Date.parse(terms.expiresAt), terms.id);
    // The tenant's due time in the due-work index (core/storage/due-index.ts `queueDue`, which
    // reads this store's approval queue: named here, as the claim store does, not imported back).
    w.call('ZADD', DUE_INDEX_KEY, 'LT', Math.floor(Date.parse(terms.expiresAt)), terms.tenantId);
  }
}

/** Writes terms outside a commit, only if none exist for the id (terms are never replaced). True when written. */
export async function writePinnedTermsOnce(session: RedisSession, terms: PinnedTerms): Promise<boolean> {
  const written = await session.one((r) =>
    r.set(pinnedKeys(terms.tenantId).terms(terms.id), JSON.stringify(terms), { nx: true, ex: TTL.pinnedSeconds }),
  );
  return written === 'OK';
}

/** A stored row: the exact stored terms text (so a decision can check nothing changed), its parsed terms, its status. */
export interface StoredPinnedRow {
  raw: string;
  terms: PinnedTerms;
  status: string;
}

/** The terms and status replies of one row; null when either is missing or the terms do not parse. */
export function parsePinnedRow(rawTerms: unknown, rawStatus: unknown): StoredPinnedRow | null {
  if (typeof rawTerms !== 'string' || typeof rawStatus !== 'string') return null;
  const parsed = PinnedTermsSchema.safeParse(parseJson(rawTerms));
  return parsed.success ? { raw: rawTerms, terms: parsed.data, status: rawStatus } : null;
}

/** The rows of these ids (one round trip), in order; null where missing or unreadable. No tenant check: the caller's. */
export async function readPinnedRows(
  session: RedisSession,
  tenantId: string,
  ids: readonly string[],
): Promise<(StoredPinnedRow | null)[]> {
  if (!ids.length) return [];
  const keys = pinnedKeys(tenantId);
  const raw = await session.pipeline((p) => {
    for (const id of ids) {
      p.get(keys.terms(id));
      p.get(keys.status(id));
    }
  });
  return ids.map((_, i) => parsePinnedRow(raw[2 * i], raw[2 * i + 1]));
}

/** The row that owns each of the contact's calls (one round trip), in order; null where none does. */
export async function pendingCallOwners(
  session: RedisSession,
  tenantId: string,
  contactId: string,
  digests: readonly string[],
): Promise<(string | null)[]> {
  const keys = pinnedKeys(tenantId);
  const owners = await session.pipeline((p) => {
    for (const d of digests) p.get(keys.pendingCall(contactId, d));
  });
  return owners.map((owner) => (typeof owner === 'string' ? owner : null));
}

/** Each tenant's approvals due by `nowMs` (ids), in the order of `tenantIds`: one round trip for all of them. */
export async function dueApprovals(
  session: RedisSession,
  tenantIds: readonly string[],
  nowMs: number,
): Promise<string[][]> {
  const queues = await session.pipeline((p) => {
    for (const tenantId of tenantIds) p.zrange(pinnedKeys(tenantId).approvalQueue, 0, nowMs, { byScore: true });
  });
  return tenantIds.map((_, i) =>
    (Array.isArray(queues[i]) ? (queues[i] as unknown[]) : []).filter((id): id is string => typeof id === 'string'),
  );
}

/** Every approval in the tenant's queue (ids, soonest expiry first). One round trip. */
export async function approvalQueueIds(session: RedisSession, tenantId: string): Promise<string[]> {
  const ids = await session.one((r) => r.zrange(pinnedKeys(tenantId).approvalQueue, 0, -1));
  return (ids as unknown[]).filter((id): id is string => typeof id === 'string');
}

/** The correcting row of each original that has one (one round trip). */
export async function readCorrections(
  session: RedisSession,
  tenantId: string,
  ids: readonly string[],
): Promise<Map<string, string>> {
  if (!ids.length) return new Map();
  const keys = pinnedKeys(tenantId);
  const raw = await session.pipeline((p) => {
    for (const id of ids) p.get(keys.correction(id));
  });
  const out = new Map<string, string>();
  ids.forEach((id, i) => {
    if (typeof raw[i] === 'string') out.set(id, raw[i] as string);
  });
  return out;
}
