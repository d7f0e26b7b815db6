import { canonicalJson } from '../../core/canonical-json.js';
import type { OutboxEntry } from '../../core/outbox-entry.js';
import { verifyTerms } from '../../core/pinned-terms.js';
import type { SecretsInput } from '../../core/security/signing-keys.js';
import type { StagedAction } from '../../core/staged-action.js';
import type { RedisSession } from '../../core/storage/redis-session.js';
import { loadPinned, type LoadedPinned } from './pinned-store.js';

/** The status a row has once it was decided for its calls to be performed. */
const PERFORMS: Record<LoadedPinned['terms']['kind'], string> = { confirmation: 'confirmed', approval: 'approved' };

export interface SignedRowCheck {
  /** The pending row the entry executes (null: none, or the entry has no gated action). */
  row: LoadedPinned | null;
  /** Why an action may not be performed (null: it may). */
  refuse: (action: StagedAction) => string | null;
}

/**
 * Delivery re-verifies the signed row it executes. A gated action (a Yes's, an approval's) reaches
 * the outbox only in the entry its decision wrote, under the row's id; before it is performed, the
 * row is read again and must verify (its signature, under the current or previous SESSION_SECRET),
 * be decided for it (confirmed, approved) and hold exactly this call (tool, kind, arguments). An
 * entry changed in storage after the decision, or a gated action with no row behind it, is
 * therefore dead, not performed. Ungated actions (a turn's own commit) need no row. One read,
 * only for an entry with a gated action.
 */
export async function checkSignedRow(
  session: RedisSession,
  secret: SecretsInput,
  entry: OutboxEntry,
): Promise<SignedRowCheck> {
  const gated = entry.actions.some((a) => a.gate !== 'none' && !a.tool.startsWith('system:'));
  if (!gated) return { row: null, refuse: () => null };
  const row = await loadPinned(session, entry.tenantId, entry.turnId);
  if (!row) return { row, refuse: (a) => (a.gate === 'none' ? null : 'a gated action with no pending row behind it') };
  const verified = await verifyTerms(row.terms, secret);
  const decided = row.status === PERFORMS[row.terms.kind];
  const signed = (a: StagedAction) =>
    row.terms.actions.some(
      (t) => t.id === a.id && t.tool === a.tool && t.kind === a.kind && canonicalJson(t.args) === canonicalJson(a.args),
    );
  return {
    row,
    refuse: (a) => {
      if (a.gate === 'none') return null;
      if (!verified)
        return `its ${row.terms.kind} ${row.terms.id} does not verify (changed in storage, or signed under a SESSION_SECRET this Worker no longer holds)`;
      if (!decided) return `its ${row.terms.kind} ${row.terms.id} is ${row.status}, not ${PERFORMS[row.terms.kind]}`;
      if (!signed(a)) return `it is not a call its ${row.terms.kind} ${row.terms.id} signed`;
      if (row.terms.contactId !== entry.contactId) return `its ${row.terms.kind} ${row.terms.id} is another contact's`;
      return null;
    },
  };
}
