import { decidingGuardrail } from '../../core/verdict.js';
import type { TurnRecord } from '../../core/turn-record.js';
import type { StagedAction } from '../../core/staged-action.js';

/** What a tenant compares between a recorded turn and its replay. */
export interface TurnOutcome {
  decision: TurnRecord['decision'];
  /** The first guardrail whose verdict is the decision (veto, escalate); null otherwise. */
  decidingGuardrail: string | null;
  reason: string;
  reply: string;
  /** Every action the model staged, `kind {args}`, in order. */
  staged: string[];
  /** Confirmations and approvals the turn would ask for (gated actions of a passing turn). */
  asks: string[];
  modelCalls: number;
}

/** The recorded turn's outcome, in the same terms as a replay's. */
export function outcomeOfRecord(record: TurnRecord): TurnOutcome {
  return {
    decision: record.decision,
    decidingGuardrail: decidingGuardrail(record.verdicts, record.decision),
    reason: record.decisionReason,
    reply: record.reply.text,
    staged: record.staged.map(actionLine),
    asks: record.decision === 'pass' ? record.staged.filter((a) => a.gate !== 'none').map(askLine) : [],
    modelCalls: record.steps.length,
  };
}

export { decidingGuardrail } from '../../core/verdict.js';

export function actionLine(a: StagedAction): string {
  return `${a.kind} ${JSON.stringify(a.args)}`;
}

export function askLine(a: StagedAction): string {
  return `${a.gate}: ${actionLine(a)}`;
}
