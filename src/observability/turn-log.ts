import { decidingGuardrail } from '../../core/verdict.js';
import type { TurnRecord } from '../../core/turn-record.js';

/**
 * One structured line per finished turn, for Workers Logs (`[observability]` in wrangler.toml)
 * or `wrangler tail`: what happened and how long it took, never what was said. The fields are
 * picked one by one from the record — never spread — so a field added to the record later (a
 * contact's words, a secret) cannot leak into the logs by accident.
 */
export interface TurnLogLine {
  event: 'turn';
  turnId: string;
  tenantId: string;
  decision: TurnRecord['decision'];
  /** The guardrail whose verdict decided an escalate or veto (first escalate, else first veto); null otherwise. */
  guardrail: string | null;
  deferred: boolean;
  /** Webhook arrival to commit (ms). */
  latencyMs: number;
  modelMs: number;
  guardrailsMs: number;
  commitMs: number;
  modelCalls: number;
  modelId: string;
  redisRoundTrips: { beforeModel: number; afterModel: number };
  staged: number;
  committed: number;
  pendingConfirmation: boolean;
  approvals: number;
  /** False when another run of the same turn committed first (this run wrote nothing). */
  written: boolean;
}

export function turnLogLine(record: TurnRecord, written: boolean): TurnLogLine {
  return {
    event: 'turn',
    turnId: record.turnId,
    tenantId: record.tenantId,
    decision: record.decision,
    guardrail: decidingGuardrail(record.verdicts, record.decision),
    deferred: record.deferred,
    latencyMs: record.timings.totalMs,
    modelMs: record.timings.modelMs,
    guardrailsMs: record.timings.guardrailsMs,
    commitMs: record.timings.commitMs,
    modelCalls: record.steps.length,
    modelId: record.modelId,
    redisRoundTrips: { beforeModel: record.redisRoundTrips.beforeModel, afterModel: record.redisRoundTrips.afterModel },
    staged: record.staged.length,
    committed: record.committed.length,
    pendingConfirmation: record.pendingConfirmation !== null,
    approvals: record.approvals.length,
    written,
  };
}

/** Writes the turn's line (one JSON object: Workers Logs indexes its fields). */
export function logTurn(record: TurnRecord, written: boolean, log: (line: string) => void = console.log): void {
  log(JSON.stringify(turnLogLine(record, written)));
}
