import type { TurnRecord } from '../../core/turn-record.js';
import { TurnStaging } from '../../tools/staging.js';
import { commitTurn } from './commit-turn.js';
import { decideTurn } from './decide-turn.js';
import { judgeTurn } from './judge-turn.js';
import type { TurnContext, TurnDeps } from './turn-context.js';
import { runTurnLoop } from './turn-loop.js';

/**
 * One turn, after the claim: loop → judge → decide → commit. Nothing the model staged leaves
 * this function except inside the committed outbox entry of a passing turn.
 */
export async function runTurn(deps: TurnDeps, ctx: TurnContext): Promise<TurnRecord> {
  const now = deps.now ?? (() => new Date());
  const { config, inbound, turnId } = ctx;
  const notes: string[] = [];
  const staging = new TurnStaging(turnId);
  const loadMs = Math.round(performance.now() - ctx.startedAt);

  const { loop, instructions, modelMs } = await runTurnLoop(deps, ctx, staging, notes);
  const { judged, ms: guardrailsMs } = await judgeTurn(deps.guardrails, { inbound, config, history: ctx.history, instructions, loop, staged: staging.actions, inHandoffUntil: ctx.inHandoffUntil });
  // From here the turn commits: a webhook reaching its deadline now waits for it (it is quick).
  ctx.deferral.committing = true;
  const decision = decideTurn({ inHandoffUntil: ctx.inHandoffUntil, loop, judged, deferred: ctx.deferral.deferred, staged: staging.actions, config, turnId, now: now() });

  const draft: TurnRecord = {
    turnId,
    tenantId: config.tenantId,
    contactId: inbound.contactId,
    messageKey: inbound.messageKey,
    inbound,
    modelId: deps.modelId,
    steps: loop.steps,
    modelReply: loop.kind === 'reply' ? loop.reply : null,
    staged: staging.actions,
    verdicts: judged?.verdicts ?? [],
    decision: decision.decision,
    decisionReason: decision.reason,
    reply: decision.reply,
    committed: [],
    pendingConfirmation: null,
    approvals: [],
    deferred: false,
    timings: { totalMs: 0, loadMs, modelMs, guardrailsMs, commitMs: 0 },
    redisRoundTrips: { beforeModel: ctx.roundTripsBeforeModel, afterModel: 0 },
    startedAt: new Date(Date.now() - (performance.now() - ctx.startedAt)).toISOString(),
    finishedAt: '',
    notes,
  };
  return commitTurn(deps, ctx, decision, draft);
}
