import { z } from 'zod';
import { OPERATOR_AUDIT_KEY } from '../../core/storage/keys.js';
import type { RedisSession } from '../../core/storage/redis-session.js';
import { auditEntry, pushAuditEntry, pushTenantAuditEntry, readAuditPage, type AuditPage } from './audit-log.js';

/**
 * The operator's audit log: every operator action — tenant created, secret rotated, suspended,
 * resumed, deleted, dashboard user set or removed, secrets re-encrypted — who, when, which tenant
 * (null for an action on all of them), what. Append-only (newest first), bounded like a tenant's
 * log (AUDIT_LIMIT). It lives outside every tenant's prefix: a deleted tenant's own log is gone
 * with it, its deletion stays here. Ids and summaries only, never a secret's value.
 */
export const OperatorAuditEntrySchema = z.object({
  at: z.string(),
  actor: z.string(),
  action: z.string(),
  tenantId: z.string().nullable(),
  detail: z.string(),
});
export type OperatorAuditEntry = z.infer<typeof OperatorAuditEntrySchema>;

/** Who acts through the operator API: whoever holds OPERATOR_SECRET (one shared secret, so no name). */
export const OPERATOR_ACTOR = 'operator';

export interface OperatorAction {
  action: string;
  /** The tenant acted on; null for an action on every tenant (re-encryption). */
  tenantId: string | null;
  detail: string;
  /** Also on the tenant's own audit log (false once the tenant is gone: its deletion). */
  alsoOnTenantLog?: boolean;
}

/** Records an operator action, on the tenant's log too unless told otherwise: one round trip. */
export async function recordOperatorAction(
  session: RedisSession,
  act: OperatorAction,
  now = new Date(),
): Promise<void> {
  const entry = auditEntry(
    { actor: OPERATOR_ACTOR, action: act.action, tenantId: act.tenantId, detail: act.detail },
    now,
  );
  const tenantId = act.tenantId;
  await session.pipeline((p) => {
    pushAuditEntry(p, OPERATOR_AUDIT_KEY, entry);
    if (tenantId !== null && act.alsoOnTenantLog !== false) {
      const { tenantId: _omitted, ...onTenantLog } = entry;
      pushTenantAuditEntry(p, tenantId, onTenantLog);
    }
  });
}

export function readOperatorAudit(
  session: RedisSession,
  page: AuditPage,
): Promise<{ entries: OperatorAuditEntry[]; next: number | null }> {
  return readAuditPage(session, OPERATOR_AUDIT_KEY, OperatorAuditEntrySchema, page);
}
