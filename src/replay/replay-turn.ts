import type { LanguageModel } from 'ai';
import type { HistoryEntry } from '../../core/history-entry.js';
import type { TenantConfig } from '../../core/tenant/tenant-config.js';
import type { TurnRecord } from '../../core/turn-record.js';
import type { Guardrail } from '../../guardrails/guardrail.js';
import { TurnStaging } from '../../tools/staging.js';
import { decideTurn } from '../turn/decide-turn.js';
import { judgeTurn } from '../turn/judge-turn.js';
import type { TurnContext } from '../turn/turn-context.js';
import { runTurnLoop } from '../turn/turn-loop.js';
import { recordedModel } from './recorded-model.js';
import { actionLine, askLine, decidingGuardrail, outcomeOfRecord, type TurnOutcome } from './turn-outcome.js';

export interface ReplayDeps {
  guardrails: readonly Guardrail[];
  /** A given model; absent, the recorded responses answer (see recorded-model.ts). */
  model?: LanguageModel;
  /** The clock the decision reads (a handoff's silence end); the recorded turn's start by default. */
  now?: () => Date;
}

export interface ReplayOptions {
  /** The conversation history the turn saw; by default the record's (none for a record without it). */
  history?: HistoryEntry[];
  /** Model budget for the replayed loop. */
  deadlineMs?: number;
}

export interface ReplayedTurn {
  turnId: string;
  before: TurnOutcome;
  after: TurnOutcome;
  /** What changed, by kind (empty: the candidate config changes nothing in this turn). */
  changes: ChangeKind[];
  modelSource: 'recorded' | 'given';
}

export type ChangeKind = 'decision' | 'deciding-guardrail' | 'reply' | 'staged' | 'asks' | 'model-calls';

/**
 * Runs a recorded turn again with a candidate config through the real loop (tools, prompt,
 * model loop), the real guardrails and the real decision — and stops there. There is no commit
 * stage: no session, no outbox, no publisher is reachable from here, so nothing can be written,
 * sent, tagged or pinned; the staging area is the replay's own. Tools only stage, so running
 * them is safe; the handoff's rows and pending rows are reported as what would be asked.
 */
export async function replayTurn(deps: ReplayDeps, record: TurnRecord, candidate: TenantConfig, options: ReplayOptions = {}): Promise<ReplayedTurn> {
  if (candidate.tenantId !== record.tenantId) throw new Error(`turn ${record.turnId} belongs to another tenant than the candidate config`);
  const model = deps.model ?? recordedModel(record);
  const startedAt = performance.now();
  const ctx: TurnContext = {
    turnId: record.turnId,
    inbound: record.inbound,
    config: candidate,
    history: options.history ?? record.request?.history ?? [],
    deadlineAt: startedAt + (options.deadlineMs ?? candidate.asyncDeadlineMs),
    startedAt,
    roundTripsBeforeModel: 0,
    // A turn that met a human in the recording meets one again: the replay does not change who holds the contact.
    inHandoffUntil: record.steps.length === 0 && record.decision === 'escalate' && record.reply.text === '' ? record.finishedAt || record.startedAt : null,
    deferral: { deferred: false, committing: true },
  };
  const staging = new TurnStaging(record.turnId);
  const notes: string[] = [];
  // The recorded canary, so a rebuilt request is the recorded one byte for byte.
  const { loop, instructions } = await runTurnLoop({ model }, ctx, staging, notes, record.request?.canary);
  const { judged } = await judgeTurn(deps.guardrails, { inbound: ctx.inbound, config: candidate, history: ctx.history, instructions, loop, staged: staging.actions, inHandoffUntil: ctx.inHandoffUntil });
  const now = deps.now ?? (() => new Date(record.startedAt));
  const decision = decideTurn({ inHandoffUntil: ctx.inHandoffUntil, loop, judged, deferred: false, staged: staging.actions, config: candidate, turnId: record.turnId, now: now(), channel: ctx.inbound.channel });
  const after: TurnOutcome = {
    decision: decision.decision,
    decidingGuardrail: decidingGuardrail(judged?.verdicts ?? [], decision.decision),
    reason: decision.reason,
    reply: decision.reply.text,
    staged: staging.actions.map(actionLine),
    asks: decision.pin.map(askLine),
    modelCalls: loop.steps.length,
  };
  const before = outcomeOfRecord(record);
  return { turnId: record.turnId, before, after, changes: changesBetween(before, after), modelSource: deps.model ? 'given' : 'recorded' };
}

function changesBetween(a: TurnOutcome, b: TurnOutcome): ChangeKind[] {
  const changes: ChangeKind[] = [];
  if (a.decision !== b.decision) changes.push('decision');
  if (a.decidingGuardrail !== b.decidingGuardrail) changes.push('deciding-guardrail');
  if (a.reply !== b.reply) changes.push('reply');
  if (JSON.stringify(a.staged) !== JSON.stringify(b.staged)) changes.push('staged');
  if (JSON.stringify(a.asks) !== JSON.stringify(b.asks)) changes.push('asks');
  if (a.modelCalls !== b.modelCalls) changes.push('model-calls');
  return changes;
}
