import type { LanguageModel } from 'ai';
import type { InboundMessage } from '../../core/inbound-message.js';
import type { TurnRecord } from '../../core/turn-record.js';
import type { Decision } from '../../core/verdict.js';
import type { RedisSession } from '../../core/storage/redis-session.js';
import type { StagedAction } from '../../core/staged-action.js';
import type { TenantConfig } from '../../core/tenant/tenant-config.js';

import { sha256Hex } from '../../core/security/digest.js';
import { runGuardrails } from '../../guardrails/pipeline.js';
import type { Guardrail } from '../../guardrails/guardrail.js';
import { newCanary } from '../../guardrails/canary.js';
import { commitTurn, publishCommitted } from '../../outbox/commit.js';
import type { OutboxEntry } from '../../core/outbox-entry.js';
import type { OutboxPublisher } from '../../outbox/publisher.js';
import { ToolOrderError } from '../../core/tenant/tool-order.js';
import { buildTurnTools, type TurnToolset } from '../../tools/registry.js';
import { TurnStaging } from '../../tools/staging.js';
import { decide } from './decide.js';
import { signedQuickReplies } from '../channels/manychat/signed-quick-replies.js';
import { pinGatedActions } from '../approvals/create-pinned.js';
import { runModelLoop, type LoopOutcome } from './model-loop.js';
import { buildInstructions, buildMessages } from './prompt.js';
import type { HistoryEntry } from '../../core/history-entry.js';

export interface TurnDeps {
  session: RedisSession;
  model: LanguageModel;
  modelId: string;
  guardrails: readonly Guardrail[];
  publisher: OutboxPublisher;
  /** Signs pinned confirmation/approval terms (SESSION_SECRET). */
  pinSecret: string;
  /**
   * Runs work past the response (ExecutionContext.waitUntil). Given, the QStash publish after the
   * commit does not hold the webhook's reply (a slow QStash must not cost ManyChat's 10 s); a
   * failed publish is caught by the sweeper either way.
   */
  background?: (work: Promise<unknown>) => void;
  /** Where the contact's buttons post back (the tenant's ManyChat webhook URL). */
  callbackUrl?: string;
  now?: () => Date;
}

/**
 * Shared between the webhook (which may stop waiting at the deadline) and the turn (which may
 * be committing). JavaScript runs one of them at a time, so whichever flips its flag first
 * decides: a turn that started committing is awaited; a deferred one commits its reply through
 * the outbox.
 */
export interface DeferralState {
  deferred: boolean;
  committing: boolean;
}

export interface TurnContext {
  turnId: string;
  inbound: InboundMessage;
  config: TenantConfig;
  history: HistoryEntry[];
  /** The model is aborted so the turn can still finish by this time (performance.now() ms). */
  deadlineAt: number;
  startedAt: number;
  /** Round trips the ingress already spent (auth + claim). */
  roundTripsBeforeModel: number;
  inHandoffUntil: string | null;
  deferral: DeferralState;
}

/** Time kept back from the model for guardrails and the commit. */
export function modelBudgetMs(ctx: Pick<TurnContext, 'deadlineAt' | 'startedAt'>, now: number): number {
  const reserve = Math.min(1500, Math.round((ctx.deadlineAt - ctx.startedAt) * 0.15));
  return Math.max(0, ctx.deadlineAt - reserve - now);
}

/**
 * One turn, after the claim: loop → guardrails → decide → one atomic commit → publish. Nothing
 * the model staged leaves this function except inside the committed outbox entry of a passing
 * turn.
 */
export async function runTurn(deps: TurnDeps, ctx: TurnContext): Promise<TurnRecord> {
  const now = deps.now ?? (() => new Date());
  const { config, inbound, turnId } = ctx;
  const notes: string[] = [];
  const staging = new TurnStaging(turnId);
  const loadMs = Math.round(performance.now() - ctx.startedAt);

  let toolset: TurnToolset | null = null;
  let instructions = '';
  let loop: LoopOutcome;
  const modelStarted = performance.now();
  if (ctx.inHandoffUntil) {
    loop = { kind: 'no-reply', why: `contact is with a human until ${ctx.inHandoffUntil}`, steps: [] };
  } else {
    try {
      toolset = buildTurnTools({ config, inbound, staging }, config.toolOrder);
      notes.push(...toolset.refused);
      instructions = buildInstructions(config, toolset, newCanary());
      const controller = new AbortController();
      const budget = modelBudgetMs(ctx, performance.now());
      const timer = setTimeout(() => controller.abort(new Error('turn deadline')), budget);
      try {
        // OpenAI's recommended per-end-user identifier, hashed so no contact id leaves us.
        const safetyIdentifier = (await sha256Hex(`${config.tenantId}:${inbound.contactId}`)).slice(0, 32);
        loop = await runModelLoop({
          model: deps.model,
          instructions,
          messages: buildMessages(inbound, ctx.history),
          toolset,
          abortSignal: controller.signal,
          notes,
          providerOptions: { openai: { safetyIdentifier } },
        });
      } finally {
        clearTimeout(timer);
      }
    } catch (err) {
      const why = err instanceof ToolOrderError ? `configuration error: ${err.message}` : `turn failed before the model answered: ${err instanceof Error ? err.message : String(err)}`;
      loop = { kind: 'error', why, aborted: false, steps: [] };
    }
  }
  const modelMs = Math.round(performance.now() - modelStarted);

  const rawReply = loop.kind === 'reply' ? loop.reply : lastReplyInput(loop);
  let decision: Decision;
  let decisionReason: string;
  const guardStarted = performance.now();
  let verdicts: TurnRecord['verdicts'] = [];
  if (ctx.inHandoffUntil) {
    decision = 'escalate';
    decisionReason = loop.kind === 'no-reply' ? loop.why : 'contact in handoff';
  } else if (loop.kind === 'error') {
    decision = 'error';
    decisionReason = loop.why;
  } else {
    const judged = await runGuardrails(
      deps.guardrails,
      { inbound, rawReply, reply: loop.kind === 'reply' ? loop.reply : null, staged: staging.actions, steps: loop.steps, config, instructions, history: ctx.history },
      config.thresholds.guardrailTimeoutMs,
    );
    verdicts = judged.verdicts;
    decision = judged.outcome;
    decisionReason = judged.reason;
    // Fail closed whatever the guardrails say: a turn without a usable reply never passes.
    if (loop.kind !== 'reply' && decision === 'pass') {
      decision = 'escalate';
      decisionReason = `no usable reply: ${loop.why}`;
    }
  }
  const guardrailsMs = Math.round(performance.now() - guardStarted);

  const outcome = decide(decision, config, turnId, loop.kind === 'reply' ? loop.reply : null, staging.actions, now());
  // A contact already with a human gets silence, not a second handoff message.
  if (ctx.inHandoffUntil) {
    outcome.reply = { text: '', quickReplies: [] };
    outcome.committed = [];
    outcome.handoffUntil = null;
  }
  const pinned = decision === 'pass' && !ctx.inHandoffUntil
    ? await pinGatedActions({ turnId, inbound, staged: staging.actions, manifest: config.manifest, secret: deps.pinSecret, now: now() })
    : { confirmation: null, approvals: [] };
  if (pinned.confirmation) {
    const { id, nonce } = pinned.confirmation;
    outcome.reply.quickReplies = [
      { caption: 'Yes', callback: { pendingId: id, answer: 'yes', nonce } },
      { caption: 'No', callback: { pendingId: id, answer: 'no', nonce } },
    ];
  }
  const createdAt = now().toISOString();

  const record: TurnRecord = {
    turnId,
    tenantId: config.tenantId,
    contactId: inbound.contactId,
    messageKey: inbound.messageKey,
    inbound,
    modelId: deps.modelId,
    steps: loop.steps,
    modelReply: loop.kind === 'reply' ? loop.reply : null,
    staged: staging.actions,
    verdicts,
    decision,
    decisionReason,
    reply: outcome.reply,
    committed: outcome.committed,
    pendingConfirmation: pinned.confirmation?.id ?? null,
    approvals: pinned.approvals.map((a) => a.id),
    deferred: false,
    timings: { totalMs: 0, loadMs, modelMs, guardrailsMs, commitMs: 0 },
    redisRoundTrips: { beforeModel: ctx.roundTripsBeforeModel, afterModel: 0 },
    startedAt: new Date(Date.now() - (performance.now() - ctx.startedAt)).toISOString(),
    finishedAt: createdAt,
    notes,
  };
  const history: HistoryEntry[] = ctx.inHandoffUntil
    ? [{ role: 'contact', text: inbound.text ?? '', at: inbound.receivedAt }]
    : [
        { role: 'contact', text: inbound.text ?? '', at: inbound.receivedAt },
        { role: 'agent', text: outcome.reply.text, at: createdAt },
      ];

  const commitStarted = performance.now();
  const before = deps.session.roundTrips;
  ctx.deferral.committing = true;
  if (ctx.deferral.deferred) {
    // The webhook has answered already: the reply goes out through the outbox, before the actions.
    record.deferred = true;
    if (outcome.reply.text) {
      // Buttons (a confirmation's Yes/No, suggestions) go with it, signed now as the webhook would.
      const quickReplies = deps.callbackUrl && outcome.reply.quickReplies.length ? await signedQuickReplies(outcome.reply, deps.callbackUrl, deps.pinSecret, config.tenantId, inbound.contactId) : [];
      const args = quickReplies.length ? { text: outcome.reply.text, quickReplies } : { text: outcome.reply.text };
      const send: StagedAction = { id: `${turnId}.reply`, tool: 'system:deferred-reply', kind: 'send_content', args, effect: 'write', idempotent: false, gate: 'none', summary: 'send the deferred reply' };
      record.committed = [send, ...record.committed];
    }
  }
  const entry: OutboxEntry | null = record.committed.length
    ? { turnId, tenantId: config.tenantId, channel: inbound.channel, contactId: inbound.contactId, actions: record.committed, state: 'pending', createdAt, attempts: 0 }
    : null;
  // Stored with the record, so counted ahead: what was spent so far plus the commit's one MULTI.
  record.redisRoundTrips.afterModel = deps.session.roundTrips - before + 1;
  record.timings.totalMs = Math.round(performance.now() - ctx.startedAt);
  const committed = await commitTurn(deps.session, { record, entry, history: inbound.text ? history : [], historyLimit: config.historyTurns, handoffUntil: outcome.handoffUntil, pinned: [...(pinned.confirmation ? [pinned.confirmation] : []), ...pinned.approvals] });
  if (!committed) {
    // Another run of this turn (its background run, or the finish-turn rerun) committed first.
    record.notes.push('another run of this turn committed it first; this run wrote nothing');
    return record;
  }
  record.redisRoundTrips.afterModel = deps.session.roundTrips - before;
  record.timings.commitMs = Math.round(performance.now() - commitStarted);
  if (entry) {
    const publishing = publishCommitted(deps.publisher, entry).then((published) => {
      if (!published.published) console.warn(`QStash publish of turn ${turnId} failed (${published.error}); the sweeper will publish it again`);
    });
    if (deps.background) deps.background(publishing);
    else await publishing;
  }
  return record;
}

/** When the loop ended without a valid reply, the last reply call's raw input (for the schema verdict). */
function lastReplyInput(loop: LoopOutcome): unknown {
  for (const step of [...loop.steps].reverse()) {
    const call = [...step.toolCalls].reverse().find((c) => c.toolName === 'reply');
    if (call) return call.input;
  }
  return null;
}
