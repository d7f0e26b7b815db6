export type VerdictOutcome = 'pass' | 'veto' | 'escalate';

export interface Verdict {
  guardrail: string;
  outcome: VerdictOutcome;
  /** A sentence a tenant can read. */
  reason: string;
  ms: number;
}

export type Decision = 'pass' | 'veto' | 'escalate' | 'error';
