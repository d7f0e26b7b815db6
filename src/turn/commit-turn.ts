import type { HistoryEntry } from '../../core/history-entry.js';
import { manyChatTarget } from '../../core/inbound-message.js';
import { buildOutboxEntry } from '../../core/outbox-entry.js';
import type { StagedAction } from '../../core/staged-action.js';
import type { TurnRecord } from '../../core/turn-record.js';
import { publishCommitted, readCommittedTurn, writeTurnCommit } from '../../outbox/commit.js';
import { pinGatedActions } from '../approvals/create-pinned.js';
import { pendingRowsFor } from '../approvals/pending-calls.js';
import { supersedePinned } from '../approvals/pinned-store.js';
import { callDigest, type PinnedTerms } from '../../core/pinned-terms.js';
import { pendingStatusLine, withPendingStatus } from '../approvals/pending-status.js';
import { notDoneLine } from './not-done-status.js';
import { tenantWords } from '../../core/tenant/tenant-words.js';
import { MAX_TEXT_CHARS } from '../../guardrails/reply-schema.js';
import { channelOf } from '../channels/index.js';
import { replySequenceOf } from './reply-sequence.js';
import type { TurnDecision } from './decide-turn.js';
import type { TurnContext, TurnDeps } from './turn-context.js';
import { logTurn } from '../observability/turn-log.js';
import { approvalNotifications } from '../approvals/approval-notification.js';
import { handoffNotification } from '../approvals/handoff-notification.js';

/**
 * The commit stage: the decision becomes one atomic write — the turn record, its outbox entry,
 * pending rows, history and handoff silence — then, off the reply's path, QStash is asked to
 * deliver. Written only if no other run of this turn committed first.
 */
export async function commitTurn(
  deps: TurnDeps,
  ctx: TurnContext,
  decision: TurnDecision,
  draft: TurnRecord,
): Promise<TurnRecord> {
  const now = (deps.now ?? (() => new Date()))();
  const { config, inbound, turnId } = ctx;
  // A call the contact already has a live pending row for reuses it: one row per call.
  // A row whose kind no longer matches its call's gate (the tenant re-gated the tool) is retired.
  const { reuse: live, supersede } = await pendingRowsFor({
    session: deps.session,
    tenantId: config.tenantId,
    contactId: inbound.contactId,
    actions: decision.pin,
    secret: deps.pinSecret,
    now,
  });
  const carried = await retireMismatchedRows(deps, draft, decision.pin, supersede);
  const fresh = [...decision.pin.filter((a) => !live.has(a.id)), ...carried];
  for (const [actionId, row] of live) draft.notes.push(`${actionId} is already waiting in ${row.id}; no second row`);
  const words = tenantWords(config, inbound.contact.language);
  const pinned = fresh.length
    ? await pinGatedActions({
        turnId,
        inbound,
        staged: fresh,
        manifest: config.manifest,
        secret: deps.pinSecret,
        now,
        locale: words.locale,
      })
    : { confirmation: null, approvals: [] };
  const reused = [...new Map([...live.values()].map((r) => [r.id, r])).values()];
  const confirmation = pinned.confirmation ?? reused.find((r) => r.kind === 'confirmation') ?? null;
  const approvals = [...pinned.approvals, ...reused.filter((r) => r.kind === 'approval')];
  // What waits, and what was not done, is the runtime's to say: lines from the rows and the
  // decision, after the model's (or the fallback's) words.
  const status = [
    pendingStatusLine(words, confirmation, approvals, config.fields),
    notDoneLine(words, decision, draft, config.fields),
  ]
    .filter(Boolean)
    .join('\n');
  const reply = { ...decision.reply, text: withPendingStatus(decision.reply.text, status, MAX_TEXT_CHARS) };
  if (confirmation) {
    const { id, nonce } = confirmation;
    reply.quickReplies = [
      { caption: words.say('yes'), callback: { pendingId: id, answer: 'yes' as const, nonce } },
      { caption: words.say('no'), callback: { pendingId: id, answer: 'no' as const, nonce } },
    ];
  }
  // A new approval is told to the tenant's endpoint, if it set one: in the same entry, after the contact's actions.
  const notify = deps.publicUrl ? approvalNotifications(config, pinned.approvals, deps.publicUrl) : [];
  // A new escalation (not a message while the contact is already with a person) tells the team.
  if (deps.publicUrl && decision.decision === 'escalate' && decision.recordAgentReply)
    notify.push(
      ...handoffNotification(
        config,
        { turnId, inbound, reason: decision.reason, handoffUntil: decision.handoffUntil },
        deps.publicUrl,
      ),
    );
  const committed = [
    ...(decision.replyRoute === 'outbox' ? [await deferredReplyAction(deps, ctx, reply)] : []),
    ...decision.commit,
    ...notify,
  ];
  const record: TurnRecord = {
    ...draft,
    reply,
    committed,
    pendingConfirmation: confirmation?.id ?? null,
    approvals: approvals.map((a) => a.id),
    deferred: ctx.deferral.deferred,
    finishedAt: now.toISOString(),
  };
  const sequence = await replySequenceOf(inbound);
  const entry = committed.length
    ? buildOutboxEntry({
        entryId: turnId,
        tenantId: config.tenantId,
        channel: inbound.channel,
        contactId: inbound.contactId,
        // A prepared message in the entry goes in the contact's channel's shape and window.
        ...manyChatTarget(inbound),
        actions: committed,
        now,
        retentionDays: config.retentionDays,
        ...(sequence ? { sequence } : {}),
      })
    : null;
  const history: HistoryEntry[] = [{ role: 'contact', text: inbound.text ?? '', at: inbound.receivedAt }];
  if (decision.recordAgentReply) history.push({ role: 'agent', text: reply.text, at: record.finishedAt });

  const commitStarted = performance.now();
  const before = deps.session.roundTrips;
  // Stored with the record, so counted ahead: what was spent so far plus the commit's one write.
  record.redisRoundTrips.afterModel = deps.session.roundTrips - before + 1;
  record.timings.totalMs = Math.round(performance.now() - ctx.startedAt);
  const written = await writeTurnCommit(deps.session, {
    record,
    entry,
    history: inbound.text ? history : [],
    historyLimit: config.historyTurns,
    handoffUntil: decision.handoffUntil,
    pinned: [...(pinned.confirmation ? [pinned.confirmation] : []), ...pinned.approvals],
    retentionDays: config.retentionDays,
    // Nothing to deliver: the contact's later replies need not wait for this message.
    ...(sequence && !entry ? { releaseSequence: { contactId: inbound.contactId, member: sequence.member } } : {}),
  });
  if (!written) {
    // Another run of this turn (its background run, the finish-turn rerun — or this run, whose
    // commit executed but answered late or was retried) committed first. The stored turn is the
    // answer: its reply, and its entry published now (QStash's deduplication id and the ledger make
    // a second publish harmless) instead of waiting minutes for the sweep.
    record.notes.push('another run of this turn committed it first; this run wrote nothing');
    logTurn(record, false);
    return answerCommitted(deps, record);
  }
  record.redisRoundTrips.afterModel = deps.session.roundTrips - before;
  record.timings.commitMs = Math.round(performance.now() - commitStarted);
  logTurn(record, true);
  if (entry) await publishInBackground(deps, entry);
  return record;
}

async function publishInBackground(deps: TurnDeps, entry: { tenantId: string; turnId: string }): Promise<void> {
  const publishing = publishCommitted(deps.publisher, entry).then((published) => {
    if (!published.published)
      console.warn(
        `QStash publish of turn ${entry.turnId} failed (${published.error}); the sweeper will publish it again`,
      );
  });
  if (deps.background) deps.background(publishing);
  else await publishing;
}

/** The stored turn in place of this run's (which wrote nothing), its waiting entry handed to QStash. */
async function answerCommitted(deps: TurnDeps, unwritten: TurnRecord): Promise<TurnRecord> {
  const { tenantId, turnId } = unwritten;
  const committed = await readCommittedTurn(deps.session, tenantId, turnId).catch((err: unknown) => {
    // Unreadable now: this run's record stands (what it did before), and the sweep publishes the entry.
    console.warn(
      `turn ${turnId}: the committed record could not be read (${err instanceof Error ? err.name : 'Error'})`,
    );
    return { record: null, pending: false };
  });
  if (!committed.record) return unwritten;
  if (committed.pending) await publishInBackground(deps, { tenantId, turnId });
  return { ...committed.record, notes: [...committed.record.notes, ...unwritten.notes.slice(-1)] };
}

/**
 * Supersedes each live row whose kind no longer matches the gate of the call staged again, and
 * returns the row's other calls (not staged this turn) so they are pinned afresh with this turn's
 * rows: retiring a row never silently drops a call the contact was still asked about.
 */
async function retireMismatchedRows(
  deps: TurnDeps,
  draft: TurnRecord,
  staged: readonly StagedAction[],
  rows: readonly PinnedTerms[],
): Promise<StagedAction[]> {
  if (!rows.length) return [];
  const stagedDigests = new Set(await Promise.all(staged.map(callDigest)));
  const carried: StagedAction[] = [];
  for (const row of rows) {
    if (!(await supersedePinned(deps.session, row))) continue;
    draft.notes.push(`${row.id} (${row.kind}) superseded: its call's gate changed since it was pinned`);
    for (const action of row.actions)
      if (!stagedDigests.has(await callDigest(action)) && !carried.some((c) => c.id === action.id))
        carried.push(action);
  }
  return carried;
}

/**
 * A deferred turn's reply (or any reply of a channel that always answers through the outbox):
 * the webhook has answered already, so the reply goes out through the outbox before the actions.
 * Its buttons (a confirmation's Yes/No, suggestions) go with it in the channel's own form,
 * signed now as the webhook would have.
 */
async function deferredReplyAction(
  deps: TurnDeps,
  ctx: TurnContext,
  reply: TurnRecord['reply'],
): Promise<StagedAction> {
  const { config, inbound, turnId } = ctx;
  const channel = channelOf(inbound.channel);
  const quickReplies = reply.quickReplies.length
    ? await channel.renderButtons(reply, {
        secret: deps.pinSecret,
        tenantId: config.tenantId,
        contactId: inbound.contactId,
        ...(deps.callbackUrl ? { callbackUrl: deps.callbackUrl } : {}),
        ...(inbound.surface ? { surface: inbound.surface } : {}),
      })
    : [];
  const args = { text: reply.text, ...(quickReplies.length ? { quickReplies } : {}), ...channel.replyArgs(inbound) };
  return {
    id: `${turnId}.reply`,
    tool: 'system:deferred-reply',
    kind: 'send_content',
    args,
    effect: 'write',
    idempotent: false,
    gate: 'none',
    summary: 'send the deferred reply',
  };
}
