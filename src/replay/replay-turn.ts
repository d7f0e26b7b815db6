import type { LanguageModel } from 'ai';
import type { HistoryEntry } from '../../core/history-entry.js';
import type { TenantConfig } from '../../core/tenant/tenant-config.js';
import type { TurnRecord } from '../../core/turn-record.js';
import type { Guardrail } from '../../guardrails/guardrail.js';
import { MAX_TEXT_CHARS } from '../../guardrails/reply-schema.js';
import { tenantWords } from '../../core/tenant/tenant-words.js';
import { stagedStatusLine, withPendingStatus } from '../approvals/pending-status.js';
import { configDigest } from '../turn/config-digest.js';
import { evaluateTurn, turnContext } from '../turn/turn-engine.js';
import { replayModel, type ReplayCall } from './recorded-model.js';
import { actionLine, askLine, decidingGuardrail, outcomeOfRecord, type TurnOutcome } from './turn-outcome.js';

export interface ReplayDeps {
  guardrails: readonly Guardrail[];
  /**
   * The configured model: it answers each call whose rebuilt request is not the recorded one
   * (recorded-model.ts). Absent, such a turn is reported as needing a model.
   */
  model?: LanguageModel;
  /** false: the configured model answers every call, even one the recording could answer. */
  useRecorded?: boolean;
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
  /** `needs-model`: a call's request changed and no model is configured; `after` is not a prediction then. */
  status: 'replayed' | 'needs-model';
  /** Why the turn needs a model (the first call the recording could not answer). */
  needsModel?: string;
  before: TurnOutcome;
  after: TurnOutcome;
  /** What changed, by kind (empty: the candidate config changes nothing in this turn, or it needs a model). */
  changes: ChangeKind[];
  /** Who answered the model calls: the recording, the configured model, both, or none was called. */
  modelSource: 'recorded' | 'model' | 'mixed' | 'none';
  /** Each model call: who answered, and why not the recording. */
  calls: Omit<ReplayCall, 'toolList'>[];
  latency: TurnLatency;
  toolList: ToolListChange;
}

/**
 * The turn's time as recorded, and as the replay would take live: the replay's own time (tools,
 * guardrails, decision, a configured model's calls) plus, for each call the recording answered,
 * the time the hosted model took for it then. An estimate: the replay does no Redis load or commit.
 */
export interface TurnLatency {
  recordedMs: number;
  replayedMs: number;
  recordedModelMs: number;
  replayedModelMs: number;
}

/** The tool list of the first request: the recorded order, the replayed one, and its bytes when the order changed. */
export interface ToolListChange {
  recordedOrder: string[] | null;
  order: string[];
  changed: boolean;
  /** The replayed tool list as the provider got it (JSON), only when it changed. */
  bytes?: string;
}

export type ChangeKind = 'decision' | 'deciding-guardrail' | 'reply' | 'staged' | 'asks' | 'model-calls';

/**
 * Runs a recorded turn again with a candidate config through the real loop (tools, prompt,
 * model loop), the real guardrails and the real decision — and stops there. There is no commit
 * stage: no session, no outbox, no publisher is reachable from here, so nothing can be written,
 * sent, tagged or pinned; the staging area is the replay's own. Tools only stage, so running
 * them is safe; the handoff's rows and pending rows are reported as what would be asked.
 */
export async function replayTurn(
  deps: ReplayDeps,
  record: TurnRecord,
  candidate: TenantConfig,
  options: ReplayOptions = {},
): Promise<ReplayedTurn> {
  if (candidate.tenantId !== record.tenantId)
    throw new Error(`turn ${record.turnId} belongs to another tenant than the candidate config`);
  const configChanged = record.request !== undefined && record.request.configDigest !== (await configDigest(candidate));
  const model = replayModel(record, {
    modelId: candidate.modelId,
    fallback: deps.model,
    useRecorded: deps.useRecorded,
    configChanged,
  });
  const startedAt = performance.now();
  const ctx = turnContext('replay', {
    turnId: record.turnId,
    inbound: record.inbound,
    // No hedging in a replay: a hedge would be a second call to a configured model (and spend the tenant's live hedge budget); it never changes a request.
    config: { ...candidate, hedging: { ...candidate.hedging, enabled: false } },
    history: options.history ?? record.request?.history ?? [],
    startedAt,
    deadlineMs: options.deadlineMs ?? candidate.asyncDeadlineMs,
    // A turn that met a human in the recording meets one again: the replay does not change who holds the contact.
    inHandoffUntil:
      record.steps.length === 0 && record.decision === 'escalate' && record.reply.text === ''
        ? record.finishedAt || record.startedAt
        : null,
  });
  // The engine's stages, stopping at the decision; the recorded canary, so a rebuilt request is the recorded one byte for byte.
  const { loop, toolOrder, judged, decision, staged } = await evaluateTurn(
    { model, guardrails: deps.guardrails, now: deps.now ?? (() => new Date(record.startedAt)) },
    ctx,
    record.request?.canary ? { canary: record.request.canary } : {},
  );
  const after: TurnOutcome = {
    decision: decision.decision,
    decidingGuardrail: decidingGuardrail(judged?.verdicts ?? [], decision.decision),
    reason: decision.reason,
    // As the commit words it: the model's text, then the runtime's line about what waits.
    reply: withPendingStatus(
      decision.reply.text,
      stagedStatusLine(tenantWords(candidate, ctx.inbound.contact.language), decision.pin, candidate.fields),
      MAX_TEXT_CHARS,
    ),
    staged: staged.map(actionLine),
    asks: decision.pin.map(askLine),
    modelCalls: loop.steps.length,
  };
  const ownMs = performance.now() - startedAt;
  const before = outcomeOfRecord(record);
  const needs = model.calls.find((c) => c.source === 'needs-model');
  const recordedAnswerMs = model.calls.filter((c) => c.source === 'recorded').reduce((sum, c) => sum + c.ms, 0);
  const latency: TurnLatency = {
    recordedMs: record.timings.totalMs,
    replayedMs: Math.round(ownMs + recordedAnswerMs),
    recordedModelMs: record.timings.modelMs,
    replayedModelMs: model.calls.reduce((sum, c) => sum + c.ms, 0),
  };
  const recordedOrder = record.request?.toolOrder ?? null;
  const order = toolOrder ?? [];
  const toolListChanged = recordedOrder !== null && order.length > 0 && order.join('\n') !== recordedOrder.join('\n');
  const toolList: ToolListChange = {
    recordedOrder,
    order,
    changed: toolListChanged,
    ...(toolListChanged && model.calls[0] ? { bytes: model.calls[0].toolList } : {}),
  };
  return {
    turnId: record.turnId,
    status: needs ? 'needs-model' : 'replayed',
    ...(needs?.why ? { needsModel: needs.why } : {}),
    before,
    after,
    changes: needs ? [] : changesBetween(before, after),
    modelSource: sourceOf(model.calls),
    calls: model.calls.map(({ toolList: _bytes, ...call }) => call),
    latency,
    toolList,
  };
}

function sourceOf(calls: readonly ReplayCall[]): ReplayedTurn['modelSource'] {
  // A call that needed a model was answered by no one.
  const sources = new Set(calls.filter((c) => c.source !== 'needs-model').map((c) => c.source));
  if (sources.size === 0) return 'none';
  if (sources.size === 2) return 'mixed';
  return sources.has('recorded') ? 'recorded' : 'model';
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
