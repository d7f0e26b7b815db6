import { publishCommitted } from '../../outbox/commit.js';
import { buildOutboxEntry, type OutboxEntry } from '../../core/outbox-entry.js';
import type { OutboxPublisher } from '../../outbox/publisher.js';
import type { StagedAction } from '../../core/staged-action.js';
import { approvalQueueIds, dueApprovals } from '../../core/storage/pinned-rows.js';
import type { RedisSession } from '../../core/storage/redis-session.js';
import { decidePinned, expireUnverifiable, loadPinned, type LoadedPinned } from './pinned-store.js';
import { verifyTerms } from '../../core/pinned-terms.js';
import { pinnedTarget } from './pinned-target.js';
import { runtimeWords, type RuntimeWords } from '../../core/runtime-words.js';
import type { TenantConfig } from '../../core/tenant/tenant-config.js';
import { describeActions } from '../../core/tenant/tenant-words.js';
import { recheckPinnedActions } from './pending-recheck.js';
import type { SecretsInput } from '../../core/security/signing-keys.js';

export interface ApprovalDeps {
  session: RedisSession;
  publisher: OutboxPublisher;
  pinSecret: SecretsInput;
  now: Date;
  /** The tenant's words in the row's language (its overrides applied); default: the shipped catalogue in that language. */
  words?: (locale?: string) => RuntimeWords;
}

export type ApprovalOutcome =
  | { result: 'approved' | 'rejected' | 'expired'; id: string }
  /** Approved, but the tenant's configuration no longer allows the call: nothing performed, the contact told. */
  | { result: 'refused'; id: string; problem: string }
  | { result: 'not-found'; id: string }
  /** Its signature does not verify: nothing performed; `retired` when it was pending and is now expired, the contact told. */
  | { result: 'tampered'; id: string; retired?: boolean }
  | { result: 'already-decided'; id: string; status: string };

/** The message a contact gets when their request is rejected or expires: nothing changed. */
function noticeEntry(
  deps: ApprovalDeps,
  loaded: LoadedPinned,
  why: 'rejected' | 'expired' | 'refused',
  now: Date,
  fields: TenantConfig['fields'] = [],
): OutboxEntry {
  const { terms } = loaded;
  const words = deps.words ? deps.words(terms.locale) : runtimeWords({ locale: 'en' }, terms.locale);
  const text =
    why === 'refused'
      ? words.say('pendingRefused', { what: describeActions(words, terms.actions, fields) })
      : words.say(why === 'rejected' ? 'approvalRejected' : 'approvalExpired');
  const notice: StagedAction = {
    id: `${terms.id}.notice`,
    tool: `system:approval-${why}`,
    kind: 'send_content',
    args: { text },
    effect: 'write',
    idempotent: false,
    gate: 'none',
    summary: `tell the contact the request was ${why}`,
  };
  return buildOutboxEntry({
    entryId: `${terms.id}.notice`,
    tenantId: terms.tenantId,
    channel: terms.channel,
    contactId: terms.contactId,
    ...pinnedTarget(terms),
    actions: [notice],
    now,
    stagedByTurnId: terms.turnId,
  });
}

async function loadVerified(deps: ApprovalDeps, tenantId: string, id: string): Promise<LoadedPinned | ApprovalOutcome> {
  const loaded = await loadPinned(deps.session, tenantId, id);
  if (!loaded || loaded.terms.kind !== 'approval') return { result: 'not-found', id };
  if (!(await verifyTerms(loaded.terms, deps.pinSecret))) {
    return { result: 'tampered', id, retired: await retireUnverifiable(deps, loaded) };
  }
  return loaded;
}

/**
 * An approval whose signature does not verify (changed behind the code's back, or signed under a
 * SESSION_SECRET this Worker no longer holds) is never performed; still pending, it is expired now
 * and its contact told nothing was changed — the same notice as an expiry, since the request will
 * not be decided. Whatever asked (an approver, the cron) then finds it decided, not waiting.
 */
export async function retireUnverifiable(deps: ApprovalDeps, loaded: LoadedPinned): Promise<boolean> {
  if (loaded.status !== 'pending') return false;
  const notice = noticeEntry(deps, loaded, 'expired', deps.now);
  const result = await expireUnverifiable(deps.session, loaded, notice, deps.now);
  if (result !== 'ok') return false;
  await publishCommitted(deps.publisher, notice);
  console.warn(
    `approval ${loaded.terms.id} of tenant ${loaded.terms.tenantId} failed verification: expired, contact told`,
  );
  return true;
}

/**
 * Approve performs exactly the pinned call, once: the status moves from pending in one script that
 * also writes the outbox entry, so two approvers or a double click perform it once. Reject and
 * expiry perform nothing the model asked for; the contact is told nothing was changed.
 */
export async function decideApproval(
  deps: ApprovalDeps & {
    /** The tenant's configuration now: an approval performs only what it still allows. */ config: TenantConfig;
  },
  tenantId: string,
  id: string,
  decision: 'approve' | 'reject',
): Promise<ApprovalOutcome> {
  const loaded = await loadVerified(deps, tenantId, id);
  if (!('terms' in loaded)) return loaded;
  // Pinned under an older configuration: approve performs it only if the current one still allows it.
  const { refused } =
    decision === 'approve' ? recheckPinnedActions(loaded.terms.actions, deps.config) : { refused: [] };
  if (refused.length) {
    const notice = noticeEntry(deps, loaded, 'refused', deps.now, deps.config.fields);
    const result = await decidePinned(deps.session, loaded, 'refused', notice, deps.now);
    if (result === 'tampered') return { result: 'tampered', id };
    if (result === 'expired') return expireOne(deps, loaded);
    if (result !== 'ok') return { result: 'already-decided', id, status: result };
    await publishCommitted(deps.publisher, notice);
    return { result: 'refused', id, problem: refused.map((r) => r.problem).join('; ') };
  }
  const entry: OutboxEntry =
    decision === 'approve'
      ? buildOutboxEntry({
          entryId: loaded.terms.id,
          tenantId,
          channel: loaded.terms.channel,
          contactId: loaded.terms.contactId,
          ...pinnedTarget(loaded.terms),
          actions: loaded.terms.actions,
          now: deps.now,
          stagedByTurnId: loaded.terms.turnId,
        })
      : noticeEntry(deps, loaded, 'rejected', deps.now);
  const result = await decidePinned(
    deps.session,
    loaded,
    decision === 'approve' ? 'approved' : 'rejected',
    entry,
    deps.now,
  );
  if (result === 'tampered') return { result: 'tampered', id };
  if (result === 'expired') return expireOne(deps, loaded);
  if (result !== 'ok') return { result: 'already-decided', id, status: result };
  await publishCommitted(deps.publisher, entry);
  return { result: decision === 'approve' ? 'approved' : 'rejected', id };
}

async function expireOne(deps: ApprovalDeps, loaded: LoadedPinned): Promise<ApprovalOutcome> {
  const entry = noticeEntry(deps, loaded, 'expired', deps.now);
  const result = await decidePinned(deps.session, loaded, 'expired', entry, deps.now);
  if (result === 'ok') await publishCommitted(deps.publisher, entry);
  return result === 'ok'
    ? { result: 'expired', id: loaded.terms.id }
    : { result: 'already-decided', id: loaded.terms.id, status: result };
}

/** Expires every approval of the tenant whose hour has passed (the sweeper calls this). */
export async function expireDueApprovals(
  deps: ApprovalDeps,
  tenantId: string,
  dueIds?: readonly string[],
): Promise<number> {
  const due = dueIds ?? (await dueApprovals(deps.session, [tenantId], deps.now.getTime()))[0]!;
  let expired = 0;
  for (const id of due) {
    const loaded = await loadVerified(deps, tenantId, id);
    // An unverifiable one was expired by loadVerified itself (and counts).
    if (!('terms' in loaded)) {
      if (loaded.result === 'tampered') expired++;
      continue;
    }
    if ((await expireOne(deps, loaded)).result === 'expired') expired++;
  }
  return expired;
}

/**
 * Every tenant's approvals past their expiry, in ONE round trip (a pipelined read of each queue):
 * the cron then visits only the tenants that have one, so an idle minute costs one request
 * however many tenants there are, not one per tenant.
 */
export async function dueApprovalsByTenant(
  session: RedisSession,
  tenantIds: readonly string[],
  now: Date,
): Promise<Map<string, string[]>> {
  if (!tenantIds.length) return new Map();
  const queues = await dueApprovals(session, tenantIds, now.getTime());
  const due = new Map<string, string[]>();
  tenantIds.forEach((tenantId, i) => {
    if (queues[i]!.length) due.set(tenantId, queues[i]!);
  });
  return due;
}

export interface ApprovalView {
  id: string;
  status: string;
  card: string;
  tool: string;
  args: string;
  contactId: string;
  turnId: string;
  createdAt: string;
  expiresAt: string;
}

export async function listApprovals(session: RedisSession, tenantId: string): Promise<ApprovalView[]> {
  const ids = await approvalQueueIds(session, tenantId);
  const views: ApprovalView[] = [];
  for (const id of ids) {
    const loaded = await loadPinned(session, tenantId, id);
    if (!loaded) continue;
    const first = loaded.terms.pinned[0];
    views.push({
      id,
      status: loaded.status,
      card: loaded.terms.card,
      tool: first?.tool ?? '',
      args: first?.args ?? '{}',
      contactId: loaded.terms.contactId,
      turnId: loaded.terms.turnId,
      createdAt: loaded.terms.createdAt,
      expiresAt: loaded.terms.expiresAt,
    });
  }
  return views;
}
