import type { LanguageModel } from 'ai';
import { sha256Hex } from '../../core/security/digest.js';
import { ToolOrderError } from '../../core/tenant/tool-order.js';
import { newCanary } from '../../guardrails/canary.js';
import { buildTurnTools } from '../../tools/registry.js';
import type { TurnStaging } from '../../tools/staging.js';
import type { HedgeRecord, TurnRecord } from '../../core/turn-record.js';
import { HISTORY_WINDOW, shortlist } from '../../tools/shortlist.js';
import type { TenantConfig } from '../../core/tenant/tenant-config.js';
import { takeHedge } from '../models/hedge-budget.js';
import { hedgedModel } from '../models/hedged-model.js';
import { hedgeDelayMs } from '../models/hedge-timing.js';
import { responseDeadlineAt } from './response-deadline.js';
import { digestingModel } from '../models/request-digest.js';
import { runModelLoop, type LoopOutcome } from './model-loop.js';
import { buildInstructions, buildMessages, systemTextOf } from './prompt.js';
import type { TurnContext, TurnDeps } from './turn-context.js';

export interface TurnLoopResult {
  loop: LoopOutcome;
  /** All the system text the model saw, instructions then canary line ('' when it was not called): the leak guardrail reads it. */
  instructions: string;
  modelMs: number;
  /** The canary and tool order the model saw (absent when it was not called): the record keeps them for a replay. */
  canary?: string;
  toolOrder?: string[];
  /** The shortlist's record, when it was active (core/turn-record.ts). */
  shortlist?: NonNullable<TurnRecord['shortlist']>;
}

/** Time kept back from the model for guardrails and the commit. */
export function modelBudgetMs(ctx: Pick<TurnContext, 'deadlineAt' | 'startedAt'>, now: number): number {
  const reserve = Math.min(1500, Math.round((ctx.deadlineAt - ctx.startedAt) * 0.15));
  return Math.max(0, ctx.deadlineAt - reserve - now);
}

/**
 * Time left before the webhook must answer (ms); `Infinity` once nobody waits for the answer: a
 * mode whose reply goes through the outbox, or a live turn the webhook has deferred.
 */
function msLeftToAnswer(ctx: Pick<TurnContext, 'config' | 'startedAt' | 'deferral'>, now: number): number {
  return ctx.deferral.deferred ? Infinity : responseDeadlineAt(ctx.config, ctx.startedAt) - now;
}

/** The tenant's model, hedged when its config says so (a provider model object only; a model id string is left as is). */
function withHedging(model: LanguageModel, ctx: TurnContext, hedges: HedgeRecord[]): LanguageModel {
  const { enabled, afterMs, freshCallMs, maxPerMinute } = ctx.config.hedging;
  const config = ctx.config;
  if (!enabled || typeof model === 'string' || model.specificationVersion !== 'v4') return model;
  return hedgedModel(model, {
    afterMs: () => hedgeDelayMs({ afterMs, freshCallMs }, msLeftToAnswer(ctx, performance.now())),
    mayHedge: () => takeHedge(config.tenantId, maxPerMinute),
    onHedge: (h) => hedges.push(h),
  });
}

/**
 * The loop stage: the turn's tools and prompt, then at most two model calls within the turn's
 * budget. A contact with a human gets no model call at all. A failure before the model answers
 * (an invalid tool order, a thrown tool builder) is an `error` outcome, never a throw.
 */
export async function runTurnLoop(
  deps: Pick<TurnDeps, 'model'>,
  ctx: TurnContext,
  staging: TurnStaging,
  notes: string[],
  replayCanary?: string,
): Promise<TurnLoopResult> {
  const { config, inbound } = ctx;
  const started = performance.now();
  let listed: TurnLoopResult['shortlist'];
  const done = (loop: LoopOutcome, instructions = ''): TurnLoopResult => ({
    loop,
    instructions,
    modelMs: Math.round(performance.now() - started),
    ...(listed ? { shortlist: listed } : {}),
  });
  if (ctx.inHandoffUntil)
    return done({ kind: 'no-reply', why: `contact is with a human until ${ctx.inHandoffUntil}`, steps: [] });
  let systemText = '';
  try {
    const list = shortlist(config, [...ctx.history.slice(-HISTORY_WINDOW).map((h) => h.text), inbound.text ?? '']);
    const toolset = buildTurnTools({ config, inbound, staging }, config.toolOrder, list);
    if (list.active)
      listed = {
        offered: toolset.order,
        resources: list.resources,
        dropped: list.dropped,
        fullTokens: list.fullTokens,
        keptTokens: list.keptTokens,
        widened: false,
      };
    notes.push(...toolset.refused);
    const instructions = buildInstructions(config, toolset);
    // A replay rebuilding a recorded request uses the recorded canary; a live turn a fresh one.
    const canary = replayCanary ?? newCanary();
    systemText = systemTextOf(instructions, canary);
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(new Error('turn deadline')), modelBudgetMs(ctx, performance.now()));
    try {
      // OpenAI's recommended per-end-user identifier, hashed so no contact id leaves us.
      const safetyIdentifier = (await sha256Hex(`${config.tenantId}:${inbound.contactId}`)).slice(0, 32);
      const hedges: HedgeRecord[] = [];
      // Outside the hedge: one digest per step, whichever copy of a hedged pair answers.
      const requestDigests: string[] = [];
      const loop = await runModelLoop({
        model: digestingModel(withHedging(deps.model, ctx, hedges), config.modelId, requestDigests),
        hedges,
        requestDigests,
        instructions,
        messages: buildMessages(inbound, ctx.history, canary),
        toolset,
        abortSignal: controller.signal,
        notes,
        providerOptions: { openai: { safetyIdentifier } },
        ...(listed
          ? {
              widen: () => {
                listed!.widened = true;
                const full = buildTurnTools({ config, inbound, staging }, config.toolOrder);
                // Step 2 reads the guidance of the tools it now has; the leak guardrail compares the
                // reply with that text (the full menu's lines include every shortlisted one).
                const widenedInstructions = buildInstructions(config, full);
                systemText = systemTextOf(widenedInstructions, canary);
                return { toolset: full, instructions: widenedInstructions };
              },
            }
          : {}),
      });
      return { ...done(loop, systemText), canary, toolOrder: toolset.order.map(String) };
    } finally {
      clearTimeout(timer);
    }
  } catch (err) {
    const why =
      err instanceof ToolOrderError
        ? `configuration error: ${err.message}`
        : `turn failed before the model answered: ${err instanceof Error ? err.message : String(err)}`;
    return done({ kind: 'error', why, aborted: false, steps: [] }, systemText);
  }
}
