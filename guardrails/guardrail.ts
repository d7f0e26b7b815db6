import type { InboundMessage } from '../core/inbound-message.js';
import type { Reply } from '../core/reply.js';
import type { StagedAction } from '../core/staged-action.js';
import type { ModelStepRecord } from '../core/turn-record.js';
import type { VerdictOutcome } from '../core/verdict.js';
import type { TenantConfig } from '../core/tenant/tenant-config.js';
import type { HistoryEntry } from '../core/history-entry.js';

/** Everything a guardrail may look at: the finished turn, nothing it could act with. */
export interface GuardrailInput {
  inbound: InboundMessage;
  /** The model's reply as it gave it, unparsed (the schema guardrail parses it). */
  rawReply: unknown;
  reply: Reply | null;
  staged: StagedAction[];
  steps: ModelStepRecord[];
  config: TenantConfig;
  /** The instructions the model saw (leak checks compare against them). */
  instructions: string;
  /**
   * The conversation before this message, as the model saw it. Optional: without it a "yes
   * please" to the agent's offer is judged on its own words only (and escalates if it stages).
   */
  history?: readonly HistoryEntry[];
}

export interface GuardrailResult {
  outcome: VerdictOutcome;
  reason: string;
}

export interface Guardrail {
  name: string;
  check(input: GuardrailInput, signal: AbortSignal): GuardrailResult | Promise<GuardrailResult>;
}

export const pass = (reason = 'ok'): GuardrailResult => ({ outcome: 'pass', reason });
export const veto = (reason: string): GuardrailResult => ({ outcome: 'veto', reason });
export const escalate = (reason: string): GuardrailResult => ({ outcome: 'escalate', reason });
