import { tenantKeys } from '../../core/storage/keys.js';
import { parseJson, type RedisSession } from '../../core/storage/redis-session.js';

/**
 * A data-deletion request's status (Meta's callback, `deletionStatus(code)`): the owner of the key
 * and of its reply. A code, a time and a summary; never personal data. Kept 90 days, for Meta's
 * status page to read.
 */
export const DELETION_STATUS_TTL_SECONDS = 90 * 24 * 3600;

/** Stores a request's status under its confirmation code: one round trip. */
export async function writeDeletionStatus(
  session: RedisSession,
  tenantId: string,
  code: string,
  status: object,
): Promise<void> {
  await session.one((r) =>
    r.set(tenantKeys(tenantId).deletionStatus(code), JSON.stringify(status), { ex: DELETION_STATUS_TTL_SECONDS }),
  );
}

/** A request's status as stored, or null when none is (an unknown or expired code): one round trip. */
export async function readDeletionStatus(
  session: RedisSession,
  tenantId: string,
  code: string,
): Promise<{ status: unknown } | null> {
  const raw = await session.one((r) => r.get(tenantKeys(tenantId).deletionStatus(code)));
  return raw ? { status: parseJson(raw) } : null;
}
