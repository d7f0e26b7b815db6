import type { LanguageModel } from 'ai';
import type { HistoryEntry } from '../../core/history-entry.js';
import type { InboundMessage } from '../../core/inbound-message.js';
import type { TenantConfig } from '../../core/tenant/tenant-config.js';
import { tenantWords } from '../../core/tenant/tenant-words.js';
import type { StagedAction } from '../../core/staged-action.js';
import type { Guardrail } from '../../guardrails/guardrail.js';
import type { PipelineResult } from '../../guardrails/pipeline.js';
import { TurnStaging } from '../../tools/staging.js';
import { decideTurn, type TurnDecision } from './decide-turn.js';
import { judgeTurn } from './judge-turn.js';
import type { TenantStatus, TurnContext, TurnModeName } from './turn-context.js';
import { runTurnLoop, type TurnLoopResult } from './turn-loop.js';

/**
 * The turn engine: every way a turn runs is one of these modes, and a mode says only what it
 * does differently. Everything else — the context, the finish due time, loop → judge → decide,
 * the refusal of a suspended tenant — is written once, here.
 *
 * - `live`: the ManyChat webhook; answered by the deadline, else deferred and finished in the background.
 * - `messenger`: Meta's webhook answered 200 at once; the reply goes through the outbox.
 * - `deferred-finish`: the delayed finish-turn job (or the sweep) reruns a turn nobody committed.
 * - `inbound-retry`: a delivery kept through a Redis outage, back from QStash.
 * - `try-perform`: the dashboard's Try it with "perform": a live turn for a test contact, committed.
 * - `try-dry`: Try it's dry run: up to the decision, nothing committed.
 * - `replay`: a recorded turn against a candidate config: the recorded model, nothing committed.
 */
export type { TenantStatus, TurnModeName } from './turn-context.js';

export interface TurnMode {
  name: TurnModeName;
  /** The turn's decision becomes a commit (record, outbox entry, pending rows). False: it stops at the decision. */
  commits: boolean;
  /** The reply cannot ride in the webhook's answer: it goes through the outbox before the actions. */
  deferred: boolean;
  /** Who answers the model calls: the tenant's configured model, or the recording (replay). */
  model: 'configured' | 'recorded';
}

export const TURN_MODES: Readonly<Record<TurnModeName, TurnMode>> = {
  live: { name: 'live', commits: true, deferred: false, model: 'configured' },
  messenger: { name: 'messenger', commits: true, deferred: true, model: 'configured' },
  'deferred-finish': { name: 'deferred-finish', commits: true, deferred: true, model: 'configured' },
  'inbound-retry': { name: 'inbound-retry', commits: true, deferred: true, model: 'configured' },
  'try-perform': { name: 'try-perform', commits: true, deferred: false, model: 'configured' },
  'try-dry': { name: 'try-dry', commits: false, deferred: false, model: 'configured' },
  replay: { name: 'replay', commits: false, deferred: false, model: 'recorded' },
};

/**
 * The one rule for a suspended tenant, for every mode: nothing new is committed or performed. A
 * mode that commits is refused before anything is claimed; a mode that commits nothing (a dry
 * run, a replay) may still run — it can perform nothing. Null: the turn may run.
 */
export function refusalOf(mode: TurnModeName, status: TenantStatus): 'suspended' | null {
  return TURN_MODES[mode].commits && status === 'suspended' ? 'suspended' : null;
}

/** The finish-turn job runs this long after the background run's own deadline. */
export const FINISH_JOB_GRACE_SECONDS = 15;

/**
 * When the stranded-turn sweep finishes a claimed turn that nothing committed (the isolate died):
 * after the background run's deadline and the finish-turn job's own grace. The one formula every
 * claim uses (start-turn, handle-inbound, inbound retry).
 */
export function finishDueAt(config: Pick<TenantConfig, 'asyncDeadlineMs'>, nowMs = Date.now()): number {
  return nowMs + config.asyncDeadlineMs + FINISH_JOB_GRACE_SECONDS * 1000;
}

/** The finish-turn job's delay for a deferred turn started at `startedAt` (performance.now() ms). */
export function finishJobDelaySeconds(
  config: Pick<TenantConfig, 'asyncDeadlineMs'>,
  startedAt: number,
  now = performance.now(),
): number {
  return Math.ceil((startedAt + config.asyncDeadlineMs - now) / 1000) + FINISH_JOB_GRACE_SECONDS;
}

export interface TurnContextInput {
  turnId: string;
  inbound: InboundMessage;
  config: TenantConfig;
  history: HistoryEntry[];
  inHandoffUntil: string | null;
  /** performance.now() when the turn's clock started (the webhook's arrival); now by default. */
  startedAt?: number;
  /** Round trips the ingress already spent (auth + claim). */
  roundTripsBeforeModel?: number;
  /** The model budget; the tenant's asyncDeadlineMs by default. */
  deadlineMs?: number;
}

/**
 * The one context factory: every mode's turn context is built here. A deferred mode starts
 * deferred (its reply goes through the outbox); a mode that commits nothing starts "committing",
 * so no deadline can ever defer it.
 */
export function turnContext(mode: TurnModeName, input: TurnContextInput): TurnContext {
  const m = TURN_MODES[mode];
  const startedAt = input.startedAt ?? performance.now();
  return {
    mode,
    turnId: input.turnId,
    inbound: input.inbound,
    config: input.config,
    history: input.history,
    deadlineAt: startedAt + (input.deadlineMs ?? input.config.asyncDeadlineMs),
    startedAt,
    roundTripsBeforeModel: input.roundTripsBeforeModel ?? 0,
    inHandoffUntil: input.inHandoffUntil,
    deferral: { deferred: m.deferred, committing: !m.commits },
  };
}

export interface EvaluatedTurn extends TurnLoopResult {
  staging: TurnStaging;
  /** What the decision saw: the staged actions, with the judge's taps (a confirmation where the runtime could not tell). */
  staged: StagedAction[];
  notes: string[];
  judged: PipelineResult | null;
  guardrailsMs: number;
  decision: TurnDecision;
}

/**
 * The stages every mode shares: loop → judge → decide, stopping before the commit. Only the
 * modes that commit go on to `commitTurn` (run-turn.ts); the dry run and the replay stop here.
 * `canary`: a replay's recorded canary, so its rebuilt request is the recorded one byte for byte.
 */
export async function evaluateTurn(
  deps: { model: LanguageModel; guardrails: readonly Guardrail[]; now?: () => Date },
  ctx: TurnContext,
  options: { canary?: string } = {},
): Promise<EvaluatedTurn> {
  const { config, inbound, turnId } = ctx;
  const notes: string[] = [];
  const staging = new TurnStaging(turnId);
  const looped = await runTurnLoop(deps, ctx, staging, notes, options.canary);
  // The judge may re-gate a write the runtime cannot tie to the contact's request (a tap instead of a handoff): `staged` is what the decision sees.
  const {
    judged,
    ms: guardrailsMs,
    staged,
    notes: tapNotes,
  } = await judgeTurn(deps.guardrails, {
    inbound,
    config,
    history: ctx.history,
    instructions: looped.instructions,
    loop: looped.loop,
    staged: staging.actions,
    inHandoffUntil: ctx.inHandoffUntil,
  });
  notes.push(...tapNotes);
  // From here a committing turn commits: a webhook reaching its deadline now waits for it (it is quick).
  ctx.deferral.committing = true;
  const now = (deps.now ?? (() => new Date()))();
  const decision = decideTurn({
    inHandoffUntil: ctx.inHandoffUntil,
    loop: looped.loop,
    judged,
    deferred: ctx.deferral.deferred,
    staged,
    config,
    turnId,
    now,
    channel: inbound.channel,
    words: tenantWords(config, inbound.contact.language),
  });
  return { ...looped, staging, staged, notes, judged, guardrailsMs, decision };
}
