import { tenantKeys } from '../../core/storage/keys.js';
import type { RedisSession } from '../../core/storage/redis-session.js';

/**
 * Which approval corrected which: `<original's status key>:corrected-by` = the new row's id,
 * written once (the same script that writes the new row, guarded on this key), so an original
 * has at most one correction and the dashboard can show the pair. Only this module names it.
 */
export function correctionKey(tenantId: string, originalId: string): string {
  return `${tenantKeys(tenantId).pinnedStatus(originalId)}:corrected-by`;
}

/** The correcting row of each original that has one (one round trip). */
export async function correctionsOf(
  session: RedisSession,
  tenantId: string,
  ids: readonly string[],
): Promise<Map<string, string>> {
  if (!ids.length) return new Map();
  const raw = await session.pipeline((p) => {
    for (const id of ids) p.get(correctionKey(tenantId, id));
  });
  const out = new Map<string, string>();
  ids.forEach((id, i) => {
    if (typeof raw[i] === 'string') out.set(id, raw[i] as string);
  });
  return out;
}
