import { escalate, pass, type Guardrail } from './guardrail.js';

/**
 * The model asks for a human only through the reply's typed `escalate` field. No phrase in any
 * text (contact message, tool result, the reply's own words) routes anything.
 */
export const modelEscalationGuardrail: Guardrail = {
  name: 'model-escalation',
  check({ reply }) {
    return reply?.escalate ? escalate(`the model asked for a human: ${reply.reason}`) : pass();
  },
};
