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

export async function appendAudit(session: RedisSession, tenantId: string, entry: Omit<AuditEntry, 'at'>, now = new Date()): Promise<void> {
  const key = tenantKeys(tenantId).audit;
  await session.pipeline((p) => {
    p.lpush(key, JSON.stringify({ at: now.toISOString(), ...entry, detail: entry.detail.slice(0, 1000) }));
    p.ltrim(key, 0, AUDIT_LIMIT - 1);
  });
}

export async function readAudit(session: RedisSession, tenantId: string, page: { offset: number; limit: number }): Promise<{ entries: AuditEntry[]; next: number | null }> {
  const raw = await session.one((r) => r.lrange(tenantKeys(tenantId).audit, page.offset, page.offset + page.limit));
  const entries = raw.map((e) => AuditEntrySchema.safeParse(parseJson(e))).flatMap((p) => (p.success ? [p.data] : []));
  const more = entries.length > page.limit;
  return { entries: entries.slice(0, page.limit), next: more ? page.offset + page.limit : null };
}

/** A config change in a line: which top-level settings changed (never their values: a persona may be long, a list may hold PII patterns). */
export function configDiffSummary(before: Record<string, unknown>, after: Record<string, unknown>): string {
  const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
  const changed = keys.filter((k) => JSON.stringify(before[k]) !== JSON.stringify(after[k]));
  return changed.length ? `changed: ${changed.join(', ')}` : 'no change';
}
