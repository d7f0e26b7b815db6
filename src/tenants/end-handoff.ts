import { releaseHandoff } from '../../core/storage/handoffs.js';
import type { RedisSession } from '../../core/storage/redis-session.js';
import { appendAudit } from './audit-log.js';

/**
 * Ends a contact's handoff silence (`t:{tenant}:handoff:{contact}`), so the agent answers their
 * next message; audited when there was one. Idempotent: ending no silence changes nothing. Used by
 * the release route (the tenant's admin) and by the Messenger webhook when the inbox hands the
 * thread back (Handover Protocol).
 */
export async function endHandoff(
  session: RedisSession,
  tenantId: string,
  contactId: string,
  actor: 'admin' | 'meta:handover',
): Promise<boolean> {
  // The silence and the dashboard's handoff inbox entry end together.
  const released = await releaseHandoff(session, tenantId, contactId);
  if (released)
    await appendAudit(session, tenantId, {
      actor,
      action: 'handoff.released',
      detail: actor === 'admin' ? `contact ${contactId}` : `contact ${contactId}: the inbox handed the thread back`,
    });
  return released;
}
