import { escalate, pass, type Guardrail } from './guardrail.js';

/** Below the tenant's threshold the turn goes to a human rather than out to the contact. */
export const confidenceGuardrail: Guardrail = {
  name: 'confidence',
  check({ reply, config }) {
    if (!reply) return pass('no reply to judge (reply-schema decides)');
    const min = config.thresholds.minConfidence;
    return reply.confidence < min
      ? escalate(`confidence ${reply.confidence} is below the tenant's threshold ${min}`)
      : pass(`confidence ${reply.confidence} ≥ ${min}`);
  },
};
