export type VerdictOutcome = 'pass' | 'veto' | 'escalate';

export interface Verdict {
  guardrail: string;
  outcome: VerdictOutcome;
  /** A sentence a tenant can read. */
  reason: string;
  ms: number;
}

export type Decision = 'pass' | 'veto' | 'escalate' | 'error';

/**
 * The guardrail that decided a turn, by the pipeline's own rule (guardrails/pipeline.ts): any
 * escalate wins, then any veto. Null for a turn no guardrail decided (pass, error). The one
 * definition: the turn log and the replay report both name the decider through it.
 */
export function decidingGuardrail(
  verdicts: readonly { guardrail: string; outcome: string }[],
  decision: string,
): string | null {
  if (decision !== 'escalate' && decision !== 'veto') return null;
  const decider = verdicts.find((v) => v.outcome === 'escalate') ?? verdicts.find((v) => v.outcome === 'veto');
  return decider?.guardrail ?? null;
}
