import { callDigest, verifyTerms, type PinnedTerms } from '../../core/pinned-terms.js';
import type { StagedAction } from '../../core/staged-action.js';
import { pendingCallOwners, readPinnedRows } from '../../core/storage/pinned-rows.js';
import type { RedisSession } from '../../core/storage/redis-session.js';
import type { SecretsInput } from '../../core/security/signing-keys.js';

/**
 * One pending row per contact and call (action kind + canonical arguments). A contact who types
 * "yes" instead of pressing the button makes a model stage the same call again; the turn must not
 * create a second row for it (pressing Yes on both would perform it twice). This finds, for each
 * gated action, the contact's live row for the same call — pending, unexpired, its terms intact —
 * so the turn reuses it (and its buttons) instead of pinning again. Two round trips, only on a turn
 * that stages a gated action. A row created concurrently anyway cannot perform the call: the
 * pending-call index names one owner (core/storage/pinned-rows.ts, the decision script).
 */
export async function livePendingRows(input: PendingRowsInput): Promise<Map<string, PinnedTerms>> {
  return (await pendingRowsFor(input)).reuse;
}

export interface PendingRowsInput {
  session: RedisSession;
  tenantId: string;
  contactId: string;
  actions: readonly StagedAction[];
  secret: SecretsInput;
  now: Date;
}

/** The row kind an action's current gate asks for. */
const ROW_KIND_OF_GATE: Record<StagedAction['gate'], PinnedTerms['kind'] | null> = {
  none: null,
  confirm: 'confirmation',
  approval: 'approval',
};

/**
 * The contact's live rows for the staged calls, split by whether they may be reused. A row is
 * reused only when its kind is what the action's gate asks for NOW: a confirmation left from
 * before the tenant put the call behind an approval (or an approval for a call now only
 * confirmed) must not hand out its old buttons — it is returned in `supersede`, and the commit
 * retires it before pinning the right row.
 */
export async function pendingRowsFor(
  input: PendingRowsInput,
): Promise<{ reuse: Map<string, PinnedTerms>; supersede: PinnedTerms[] }> {
  const { session, tenantId, contactId, actions, now } = input;
  const found = new Map<string, PinnedTerms>();
  const supersede = new Map<string, PinnedTerms>();
  if (!actions.length) return { reuse: found, supersede: [] };
  const digests = await Promise.all(actions.map(callDigest));
  const owners = await pendingCallOwners(session, tenantId, contactId, digests);
  const ids = [...new Set(owners.filter((o): o is string => o !== null))];
  if (!ids.length) return { reuse: found, supersede: [] };
  const rows = await readPinnedRows(session, tenantId, ids);
  const live = new Map<string, PinnedTerms>();
  for (const [i, id] of ids.entries()) {
    const row = rows[i];
    if (!row || row.status !== 'pending' || row.terms.tenantId !== tenantId || row.terms.contactId !== contactId)
      continue;
    if (Date.parse(row.terms.expiresAt) <= now.getTime() || !(await verifyTerms(row.terms, input.secret))) continue;
    live.set(id, row.terms);
  }
  for (const [i, action] of actions.entries()) {
    const row = live.get(String(owners[i]));
    if (!row?.callDigests?.includes(digests[i]!)) continue;
    if (row.kind === ROW_KIND_OF_GATE[action.gate]) found.set(action.id, row);
    else supersede.set(row.id, row);
  }
  // A row retired for one of its calls is reused for none of them.
  for (const [actionId, row] of found) if (supersede.has(row.id)) found.delete(actionId);
  return { reuse: found, supersede: [...supersede.values()] };
}
