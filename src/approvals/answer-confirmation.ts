import { buildOutboxEntry, type OutboxEntry } from '../../core/outbox-entry.js';
import { publishCommitted } from '../../outbox/commit.js';
import type { OutboxPublisher } from '../../outbox/publisher.js';
import { timingSafeEqual } from '../../core/security/constant-time.js';
import type { RedisSession } from '../../core/storage/redis-session.js';
import { decidePinned, loadPinned } from './pinned-store.js';
import { verifyTerms } from '../../core/pinned-terms.js';

export interface ConfirmationAnswer {
  /** What the contact is told. */
  text: string;
  outcome: 'confirmed' | 'declined' | 'expired' | 'already-answered' | 'invalid';
}

/**
 * A contact's Yes/No on a pending confirmation, with no model call. Yes commits exactly the
 * pinned actions (through the outbox); No discards them. A replayed, forged, expired or
 * mismatched answer changes nothing.
 */
export async function answerConfirmation(
  deps: { session: RedisSession; publisher: OutboxPublisher; pinSecret: string; now: Date },
  claim: { tenantId: string; contactId: string; pendingId: string; answer: 'yes' | 'no'; nonce: string },
): Promise<ConfirmationAnswer> {
  const loaded = await loadPinned(deps.session, claim.tenantId, claim.pendingId);
  const enc = new TextEncoder();
  if (!loaded || loaded.terms.kind !== 'confirmation' || loaded.terms.contactId !== claim.contactId || !timingSafeEqual(enc.encode(loaded.terms.nonce), enc.encode(claim.nonce))) {
    return { text: 'That button is no longer valid; nothing was changed.', outcome: 'invalid' };
  }
  if (!(await verifyTerms(loaded.terms, deps.pinSecret))) return { text: 'That request could not be verified; nothing was changed.', outcome: 'invalid' };
  if (loaded.status !== 'pending') return { text: 'You already answered that one; nothing more was changed.', outcome: 'already-answered' };

  const entry: OutboxEntry | null =
    claim.answer === 'yes'
      ? buildOutboxEntry({ entryId: loaded.terms.id, tenantId: claim.tenantId, channel: loaded.terms.channel, contactId: claim.contactId, actions: loaded.terms.actions, now: deps.now, stagedByTurnId: loaded.terms.turnId })
      : null;
  const result = await decidePinned(deps.session, loaded, claim.answer === 'yes' ? 'confirmed' : 'declined', entry, deps.now);
  if (result === 'expired') return { text: 'That request has expired; nothing was changed.', outcome: 'expired' };
  if (result !== 'ok') return { text: 'You already answered that one; nothing more was changed.', outcome: 'already-answered' };
  if (entry) {
    await publishCommitted(deps.publisher, entry);
    return { text: `Confirmed: ${loaded.terms.card}. It is on its way.`, outcome: 'confirmed' };
  }
  return { text: 'OK, nothing was changed.', outcome: 'declined' };
}
