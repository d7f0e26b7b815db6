import type { HistoryEntry } from '../../core/history-entry.js';
import { manyChatTarget } from '../../core/inbound-message.js';
import { buildOutboxEntry } from '../../core/outbox-entry.js';
import type { StagedAction } from '../../core/staged-action.js';
import type { TurnRecord } from '../../core/turn-record.js';
import { publishCommitted, writeTurnCommit } from '../../outbox/commit.js';
import { pinGatedActions } from '../approvals/create-pinned.js';
import { livePendingRows } from '../approvals/pending-calls.js';
import { pendingStatusLine, withPendingStatus } from '../approvals/pending-status.js';
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
  const live = await livePendingRows({
    session: deps.session,
    tenantId: config.tenantId,
    contactId: inbound.contactId,
    actions: decision.pin,
    secret: deps.pinSecret,
    now,
  });
  const fresh = decision.pin.filter((a) => !live.has(a.id));
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
  // What waits is the runtime's to say: one line from the rows, after the model's words.
  const status = pendingStatusLine(words, confirmation, approvals, config.fields);
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
    // Another run of this turn (its background run, or the finish-turn rerun) committed first.
    record.notes.push('another run of this turn committed it first; this run wrote nothing');
    logTurn(record, false);
    return record;
  }
  record.redisRoundTrips.afterModel = deps.session.roundTrips - before;
  record.timings.commitMs = Math.round(performance.now() - commitStarted);
  logTurn(record, true);
  if (entry) {
    const publishing = publishCommitted(deps.publisher, entry).then((published) => {
      if (!published.published)
        console.warn(`QStash publish of turn ${turnId} failed (${published.error}); the sweeper will publish it again`);
    });
    if (deps.background) deps.background(publishing);
    else await publishing;
  }
  return record;
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
