import { actionPolicyGuardrail } from './action-policy.js';
import { confidenceGuardrail } from './confidence.js';
import { completionClaimsGuardrail } from './completion-claims.js';
import { contentGuardrail } from './content.js';
import type { Guardrail } from './guardrail.js';
import { modelEscalationGuardrail } from './model-escalation.js';
import { promptInjectionGuardrail } from './prompt-injection.js';
import { replySchemaGuardrail } from './reply-schema.js';
import { systemPromptLeakGuardrail } from './system-prompt-leak.js';

/**
 * The guardrails every turn runs, in the order their verdicts are listed. (The rate limit runs
 * before the turn, in the ManyChat route; the handoff is the decision step's, in decide.ts.)
 */
export const defaultGuardrails: readonly Guardrail[] = [
  replySchemaGuardrail,
  modelEscalationGuardrail,
  confidenceGuardrail,
  promptInjectionGuardrail,
  actionPolicyGuardrail,
  contentGuardrail,
  systemPromptLeakGuardrail,
  completionClaimsGuardrail,
];
