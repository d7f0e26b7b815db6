import { callDigest, PinnedTermsSchema, verifyTerms, type PinnedTerms } from '../../core/pinned-terms.js';
import type { StagedAction } from '../../core/staged-action.js';
import { tenantKeys } from '../../core/storage/keys.js';
import { parseJson, type RedisSession } from '../../core/storage/redis-session.js';

/**
 * One pending row per contact and call (action kind + canonical arguments). A contact who types
 * "yes" instead of pressing the button makes a model stage the same call again; the turn must not
 * create a second row for it (pressing Yes on both would perform it twice). This finds, for each
 * gated action, the contact's live row for the same call — pending, unexpired, its terms intact —
 * so the turn reuses it (and its buttons) instead of pinning again. Two round trips, only on a turn
 * that stages a gated action. A row created concurrently anyway cannot perform the call: the
 * pending-call index names one owner (core/storage/pinned-rows.ts, the decision script).
 */
export async function livePendingRows(input: {
  session: RedisSession;
  tenantId: string;
  contactId: string;
  actions: readonly StagedAction[];
  secret: string;
  now: Date;
}): Promise<Map<string, PinnedTerms>> {
  const { session, tenantId, contactId, actions, now } = input;
  const found = new Map<string, PinnedTerms>();
  if (!actions.length) return found;
  const keys = tenantKeys(tenantId);
  const digests = await Promise.all(actions.map(callDigest));
  const owners = await session.pipeline((p) => {
    for (const d of digests) p.get(keys.pendingCall(contactId, d));
  });
  const ids = [...new Set(owners.filter((o): o is string => typeof o === 'string'))];
  if (!ids.length) return found;
  const rows = await session.pipeline((p) => {
    for (const id of ids) {
      p.get(keys.pinnedTerms(id));
      p.get(keys.pinnedStatus(id));
    }
  });
  const live = new Map<string, PinnedTerms>();
  for (const [i, id] of ids.entries()) {
    const terms = PinnedTermsSchema.safeParse(parseJson(rows[i * 2]));
    if (
      !terms.success ||
      rows[i * 2 + 1] !== 'pending' ||
      terms.data.tenantId !== tenantId ||
      terms.data.contactId !== contactId
    )
      continue;
    if (Date.parse(terms.data.expiresAt) <= now.getTime() || !(await verifyTerms(terms.data, input.secret))) continue;
    live.set(id, terms.data);
  }
  for (const [i, action] of actions.entries()) {
    const row = live.get(String(owners[i]));
    if (row?.callDigests?.includes(digests[i]!)) found.set(action.id, row);
  }
  return found;
}
