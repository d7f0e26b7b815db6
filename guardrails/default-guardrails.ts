import { confidenceGuardrail } from './confidence.js';
import type { Guardrail } from './guardrail.js';
import { modelEscalationGuardrail } from './model-escalation.js';
import { replySchemaGuardrail } from './reply-schema.js';

/** The guardrails every turn runs, in the order their verdicts are listed. */
export const defaultGuardrails: readonly Guardrail[] = [replySchemaGuardrail, modelEscalationGuardrail, confidenceGuardrail];
