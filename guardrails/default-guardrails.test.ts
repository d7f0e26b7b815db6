import { describe, expect, it } from 'vitest';
import { defaultGuardrails } from './default-guardrails.js';

describe('defaultGuardrails (issue 22)', () => {
  it('every turn runs these guardrails, in this order (the order their verdicts are listed in)', () => {
    // Rule: dropping one from the list would let its kind of unsafe turn through silently.
    expect(defaultGuardrails.map((g) => g.name)).toEqual([
      'reply-schema',
      'model-escalation',
      'confidence',
      'prompt-injection',
      'action-policy',
      'content',
      'system-prompt-leak',
      'completion-claims',
    ]);
  });
});
