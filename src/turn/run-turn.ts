import { tenantWords } from '../../core/tenant/tenant-words.js';
import type { ModelRequestRecord, TurnRecord } from '../../core/turn-record.js';
import { commitTurn } from './commit-turn.js';
import { configDigest } from './config-digest.js';
import { decideTurn, type TurnDecision } from './decide-turn.js';
import type { LoopOutcome } from './model-loop.js';
import type { PipelineResult } from '../../guardrails/pipeline.js';
import type { StagedAction } from '../../core/staged-action.js';
import type { TurnContext, TurnDeps } from './turn-context.js';
import { evaluateTurn } from './turn-engine.js';

/**
 * One committing turn, after the claim: the engine's loop → judge → decide (turn-engine.ts), then the commit. Nothing the model staged leaves
 * this function except inside the committed outbox entry of a passing turn.
 *
 * A stage that throws (a bug, a store that failed mid-turn) does not leave a claim that answers
 * nothing: the turn is finished as an error — the tenant's fallback reply, nothing the model
 * staged — so the contact and every retry of the delivery get an answer. If even that write
 * fails, the error propagates and the cron's sweep of open claims finishes the turn later.
 */
export async function runTurn(deps: TurnDeps, ctx: TurnContext): Promise<TurnRecord> {
  try {
    return await runTurnStages(deps, ctx);
  } catch (err) {
    const why = `the turn failed before its commit: ${err instanceof Error ? err.name : 'Error'}`;
    console.error(`turn ${ctx.turnId}: ${why}`);
    const loop = { kind: 'error' as const, why, aborted: false, steps: [] };
    ctx.deferral.committing = true;
    const decision = decideTurn({
      inHandoffUntil: ctx.inHandoffUntil,
      loop,
      judged: null,
      deferred: ctx.deferral.deferred,
      staged: [],
      config: ctx.config,
      turnId: ctx.turnId,
      now: (deps.now ?? (() => new Date()))(),
      channel: ctx.inbound.channel,
      words: tenantWords(ctx.config, ctx.inbound.contact.language),
    });
    return commitTurn(
      deps,
      ctx,
      decision,
      draftRecord(deps, ctx, {
        loop,
        judged: null,
        decision,
        staged: [],
        notes: [why],
        timings: { loadMs: 0, modelMs: 0, guardrailsMs: 0 },
      }),
    );
  }
}

async function runTurnStages(deps: TurnDeps, ctx: TurnContext): Promise<TurnRecord> {
  const { config } = ctx;
  const loadMs = Math.round(performance.now() - ctx.startedAt);
  const { loop, modelMs, canary, toolOrder, shortlist, judged, guardrailsMs, decision, staged, notes } =
    await evaluateTurn(deps, ctx);
  const request: ModelRequestRecord | undefined =
    canary && toolOrder
      ? { configDigest: await configDigest(config), toolOrder, canary, history: ctx.history }
      : undefined;
  const draft = draftRecord(deps, ctx, {
    loop,
    judged,
    decision,
    staged,
    notes,
    timings: { loadMs, modelMs, guardrailsMs },
  });
  const withRequest = request ? { ...draft, request } : draft;
  return commitTurn(deps, ctx, decision, shortlist ? { ...withRequest, shortlist } : withRequest);
}

/** The record as the stages leave it; the commit stage adds what it pins and commits. */
function draftRecord(
  deps: TurnDeps,
  ctx: TurnContext,
  turn: {
    loop: LoopOutcome;
    judged: PipelineResult | null;
    decision: TurnDecision;
    staged: StagedAction[];
    notes: string[];
    timings: { loadMs: number; modelMs: number; guardrailsMs: number };
  },
): TurnRecord {
  const { config, inbound, turnId } = ctx;
  const { loop, judged, decision } = turn;
  return {
    turnId,
    tenantId: config.tenantId,
    contactId: inbound.contactId,
    messageKey: inbound.messageKey,
    inbound,
    modelId: deps.modelId,
    steps: loop.steps,
    modelReply: loop.kind === 'reply' ? loop.modelReply : null,
    staged: turn.staged,
    verdicts: judged?.verdicts ?? [],
    decision: decision.decision,
    decisionReason: decision.reason,
    reply: decision.reply,
    committed: [],
    pendingConfirmation: null,
    approvals: [],
    deferred: false,
    timings: { totalMs: 0, ...turn.timings, commitMs: 0 },
    redisRoundTrips: { beforeModel: ctx.roundTripsBeforeModel, afterModel: 0 },
    startedAt: new Date(Date.now() - (performance.now() - ctx.startedAt)).toISOString(),
    finishedAt: '',
    notes: turn.notes,
  };
}
