import { buildOutboxEntry, type OutboxEntry } from '../../core/outbox-entry.js';
import { publishCommitted } from '../../outbox/commit.js';
import type { OutboxPublisher } from '../../outbox/publisher.js';
import { timingSafeEqual } from '../../core/security/constant-time.js';
import type { RedisSession } from '../../core/storage/redis-session.js';
import { decidePinned, loadPinned } from './pinned-store.js';
import { verifyTerms } from '../../core/pinned-terms.js';
import type { ManyChatChannel } from '../../core/manychat-channels.js';
import { pinnedTarget } from './pinned-target.js';
import { CATALOGUE_EN_WORDS, type RuntimeWords } from '../../core/runtime-words.js';
import { describeActions } from '../../core/tenant/tenant-words.js';

export interface ConfirmationAnswer {
  /** What the contact is told. */
  text: string;
  outcome: 'confirmed' | 'declined' | 'expired' | 'already-answered' | 'invalid';
  /** ManyChat: the channel the row was asked on (the answer's shape), once the row is the contact's. */
  surface?: ManyChatChannel;
}

/**
 * A contact's Yes/No on a pending confirmation, with no model call. Yes commits exactly the
 * pinned actions (through the outbox); No discards them. A replayed, forged, expired or
 * mismatched answer changes nothing.
 */
export async function answerConfirmation(
  deps: {
    session: RedisSession;
    publisher: OutboxPublisher;
    pinSecret: string;
    now: Date;
    /** The tenant's words in a language (the row's, else the tenant's own); default: the English catalogue. */ words?: (
      locale?: string,
    ) => RuntimeWords;
  },
  claim: { tenantId: string; contactId: string; pendingId: string; answer: 'yes' | 'no'; nonce: string },
): Promise<ConfirmationAnswer> {
  const wordsIn = deps.words ?? (() => CATALOGUE_EN_WORDS);
  const loaded = await loadPinned(deps.session, claim.tenantId, claim.pendingId);
  // The language the contact was asked in, once the row is theirs; before that the tenant's.
  const words = wordsIn(loaded?.terms.contactId === claim.contactId ? loaded.terms.locale : undefined);
  const enc = new TextEncoder();
  if (
    !loaded ||
    loaded.terms.kind !== 'confirmation' ||
    loaded.terms.contactId !== claim.contactId ||
    !timingSafeEqual(enc.encode(loaded.terms.nonce), enc.encode(claim.nonce))
  ) {
    return { text: words.say('buttonInvalid'), outcome: 'invalid' };
  }
  if (!(await verifyTerms(loaded.terms, deps.pinSecret))) return { text: words.say('notVerified'), outcome: 'invalid' };
  // Signed with the row: the channel the contact was asked on, whatever the press says.
  const shape = loaded.terms.surface ? { surface: loaded.terms.surface } : {};
  if (loaded.status !== 'pending') return { text: words.say('alreadyAnswered'), outcome: 'already-answered', ...shape };

  const entry: OutboxEntry | null =
    claim.answer === 'yes'
      ? buildOutboxEntry({
          entryId: loaded.terms.id,
          tenantId: claim.tenantId,
          channel: loaded.terms.channel,
          contactId: claim.contactId,
          // The press is the contact's own message on that channel: the window runs from it.
          ...pinnedTarget(loaded.terms, deps.now),
          actions: loaded.terms.actions,
          now: deps.now,
          stagedByTurnId: loaded.terms.turnId,
        })
      : null;
  const result = await decidePinned(
    deps.session,
    loaded,
    claim.answer === 'yes' ? 'confirmed' : 'declined',
    entry,
    deps.now,
  );
  if (result === 'expired') return { text: words.say('confirmationExpired'), outcome: 'expired', ...shape };
  if (result !== 'ok') return { text: words.say('alreadyAnswered'), outcome: 'already-answered', ...shape };
  if (entry) {
    await publishCommitted(deps.publisher, entry);
    return {
      text: words.say('confirmed', { what: describeActions(words, loaded.terms.actions) }),
      outcome: 'confirmed',
      ...shape,
    };
  }
  return { text: words.say('declined'), outcome: 'declined', ...shape };
}
