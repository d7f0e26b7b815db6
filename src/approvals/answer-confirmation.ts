import { buildOutboxEntry, type OutboxEntry } from '../../core/outbox-entry.js';
import { publishCommitted } from '../../outbox/commit.js';
import type { OutboxPublisher } from '../../outbox/publisher.js';
import { timingSafeEqual } from '../../core/security/constant-time.js';
import type { RedisSession } from '../../core/storage/redis-session.js';
import { decidePinned, expireUnverifiable, loadPinned, ownedCalls } from './pinned-store.js';
import { verifyTerms } from '../../core/pinned-terms.js';
import type { ManyChatChannel } from '../../core/manychat-channels.js';
import { pinnedTarget } from './pinned-target.js';
import { CATALOGUE_EN_WORDS, type RuntimeWords } from '../../core/runtime-words.js';
import { describeActions } from '../../core/tenant/tenant-words.js';
import type { TenantConfig } from '../../core/tenant/tenant-config.js';
import { recheckPinnedActions } from './pending-recheck.js';
import type { SecretsInput } from '../../core/security/signing-keys.js';

export interface ConfirmationAnswer {
  /** What the contact is told. */
  text: string;
  outcome: 'confirmed' | 'declined' | 'expired' | 'already-answered' | 'invalid' | 'refused';
  /** The pinned actions the tenant's current configuration no longer allows: not performed, and why. */
  refused?: string[];
  /** ManyChat: the channel the row was asked on (the answer's shape), once the row is the contact's. */
  surface?: ManyChatChannel;
  /**
   * With `already-answered`: the row was decided exactly as this answer decides it (a Yes on a
   * confirmed row, a No on a declined one) — a retry of the same answer, whose first try may have
   * stopped after the decision and before the contact was told. What that answer said.
   */
  sameAs?: { outcome: 'confirmed' | 'declined' | 'refused'; text: string };
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
    pinSecret: SecretsInput;
    now: Date;
    /** The tenant's configuration now: a Yes performs only what it still allows. */
    config: TenantConfig;
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
  if (!(await verifyTerms(loaded.terms, deps.pinSecret))) {
    // Never performed; still pending, it is expired now (the press is the contact's notice), so a
    // row signed under a SESSION_SECRET the Worker no longer holds does not wait for its TTL.
    const retired = loaded.status === 'pending' && (await expireUnverifiable(deps.session, loaded, null, deps.now));
    if (retired === 'ok') console.warn(`confirmation ${loaded.terms.id} failed verification: expired`);
    return { text: words.say('notVerified'), outcome: retired === 'ok' ? 'expired' : 'invalid' };
  }
  // Signed with the row: the channel the contact was asked on, whatever the press says.
  const shape = loaded.terms.surface ? { surface: loaded.terms.surface } : {};
  // A Yes performs only the calls this row owns: one another row owns (two turns pinned it at
  // once) is that row's to perform, whether it still waits or was decided. A row that owns none
  // of its calls is superseded by the decision script, as before.
  const owned = claim.answer === 'yes' ? await ownedCalls(deps.session, loaded.terms) : null;
  const mine = owned?.some(Boolean) ? loaded.terms.actions.filter((_, i) => owned[i]) : loaded.terms.actions;
  const calls = owned?.some(Boolean)
    ? (loaded.terms.callDigests ?? []).filter((_, i) => owned[i])
    : (loaded.terms.callDigests ?? []);
  // The Yes performs only what the tenant's configuration allows now, not what it allowed when pinned.
  const { allowed, refused } =
    claim.answer === 'yes' ? recheckPinnedActions(mine, deps.config) : { allowed: [], refused: [] };
  const entry: OutboxEntry | null = allowed.length
    ? buildOutboxEntry({
        entryId: loaded.terms.id,
        tenantId: claim.tenantId,
        channel: loaded.terms.channel,
        contactId: claim.contactId,
        // The press is the contact's own message on that channel: the window runs from it.
        ...pinnedTarget(loaded.terms, deps.now),
        actions: allowed,
        now: deps.now,
        stagedByTurnId: loaded.terms.turnId,
      })
    : null;
  const decision = claim.answer === 'no' ? 'declined' : allowed.length ? 'confirmed' : 'refused';
  const said = () => decisionText(words, deps.config, decision, allowed, refused);
  const already = (status: string): ConfirmationAnswer => ({
    text: words.say('alreadyAnswered'),
    outcome: 'already-answered',
    ...shape,
    ...(status === decision ? { sameAs: { outcome: decision, text: said().text } } : {}),
  });
  if (loaded.status !== 'pending') return already(loaded.status);
  const result = await decidePinned(deps.session, loaded, decision, entry, deps.now, calls);
  if (result === 'expired') return { text: words.say('confirmationExpired'), outcome: 'expired', ...shape };
  if (result !== 'ok') return already(result);
  if (entry) await publishCommitted(deps.publisher, entry);
  return { ...said(), ...shape };
}

/** What the contact is told of a decision: declined, refused (and why), or confirmed (with what was refused, if any). */
function decisionText(
  words: RuntimeWords,
  config: TenantConfig,
  decision: 'confirmed' | 'declined' | 'refused',
  allowed: Parameters<typeof describeActions>[1],
  refused: { action: Parameters<typeof describeActions>[1][number]; problem: string }[],
): Pick<ConfirmationAnswer, 'text' | 'outcome' | 'refused'> {
  if (decision === 'declined') return { text: words.say('declined'), outcome: 'declined' };
  const fields = config.fields;
  const refusedText = refused.length
    ? words.say('pendingRefused', {
        what: describeActions(
          words,
          refused.map((r) => r.action),
          fields,
        ),
      })
    : '';
  const problems = refused.length ? { refused: refused.map((r) => r.problem) } : {};
  if (decision === 'refused') return { text: refusedText, outcome: 'refused', ...problems };
  const confirmedText = words.say('confirmed', { what: describeActions(words, allowed, fields) });
  return { text: refusedText ? `${confirmedText} ${refusedText}` : confirmedText, outcome: 'confirmed', ...problems };
}
