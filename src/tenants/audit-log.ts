import { z } from 'zod';
import { tenantKeys } from '../../core/storage/keys.js';
import { parseJson, type RedisSession } from '../../core/storage/redis-session.js';

/**
 * A tenant's audit log: every change — config, secret rotation, suspension, approval decision,
 * re-drive, handoff release, deletion — who (operator, admin secret, dashboard user, system),
 * when, what. Append-only (newest first), bounded to the newest 10,000 entries; it holds ids and
 * summaries, never a contact's words or a secret. Readable through the tenant API, paged.
 */
export const AuditEntrySchema = z.object({
  at: z.string(),
  actor: z.string(),
  action: z.string(),
  detail: z.string(),
});
export type AuditEntry = z.infer<typeof AuditEntrySchema>;

export const AUDIT_LIMIT = 10_000;

export async function appendAudit(
  session: RedisSession,
  tenantId: string,
  entry: Omit<AuditEntry, 'at'>,
  now = new Date(),
): Promise<void> {
  const key = tenantKeys(tenantId).audit;
  await session.pipeline((p) => pushAuditEntry(p, key, auditEntry(entry, now)));
}

export async function readAudit(
  session: RedisSession,
  tenantId: string,
  page: AuditPage,
): Promise<{ entries: AuditEntry[]; next: number | null }> {
  return readAuditPage(session, tenantKeys(tenantId).audit, AuditEntrySchema, page);
}

export interface AuditPage {
  offset: number;
  limit: number;
}

/** Queues an append to the tenant's own audit log on a pipeline (an operator action goes on both logs in one round trip). */
export function pushTenantAuditEntry(
  p: Parameters<Parameters<RedisSession['pipeline']>[0]>[0],
  tenantId: string,
  entry: object,
): void {
  pushAuditEntry(p, tenantKeys(tenantId).audit, entry);
}

/** An entry as stored: stamped with its time, its detail bounded. */
export function auditEntry<T extends { detail: string }>(entry: T, now: Date): T & { at: string } {
  return { at: now.toISOString(), ...entry, detail: entry.detail.slice(0, 1000) };
}

/** Queues an append to an audit list (newest first, bounded to AUDIT_LIMIT) on a pipeline: any audit list, the tenant's or the operator's. */
export function pushAuditEntry(
  p: Parameters<Parameters<RedisSession['pipeline']>[0]>[0],
  key: string,
  entry: object,
): void {
  p.lpush(key, JSON.stringify(entry));
  p.ltrim(key, 0, AUDIT_LIMIT - 1);
}

/** One page of an audit list, newest first; `next` is the offset of the page after it, if there is one. */
export async function readAuditPage<T>(
  session: RedisSession,
  key: string,
  schema: z.ZodType<T>,
  page: AuditPage,
): Promise<{ entries: T[]; next: number | null }> {
  // One more than the page: whether another page follows, without a second round trip.
  const raw = await session.one((r) => r.lrange(key, page.offset, page.offset + page.limit));
  const entries = raw.map((e) => schema.safeParse(parseJson(e))).flatMap((p) => (p.success ? [p.data] : []));
  const more = entries.length > page.limit;
  return { entries: entries.slice(0, page.limit), next: more ? page.offset + page.limit : null };
}

/** A config change in a line: which top-level settings changed (never their values: a persona may be long, a list may hold PII patterns). */
export function configDiffSummary(before: Record<string, unknown>, after: Record<string, unknown>): string {
  const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
  const changed = keys.filter((k) => JSON.stringify(before[k]) !== JSON.stringify(after[k]));
  return changed.length ? `changed: ${changed.join(', ')}` : 'no change';
}
