import { describe, expect, it } from 'vitest';
import { testConfig, turnInput, verdictOf } from '../test/support/guardrail-input.js';
import { confidenceGuardrail } from './confidence.js';

describe('confidence', () => {
  it('passes at or above the tenant threshold, escalates below it', async () => {
    expect((await verdictOf(confidenceGuardrail, turnInput({ reply: { confidence: 0.5 } }))).outcome).toBe('pass');
    const v = await verdictOf(confidenceGuardrail, turnInput({ reply: { confidence: 0.49 } }));
    expect(v.outcome).toBe('escalate');
    expect(v.reason).toContain('0.49');
  });

  it("uses the tenant's own threshold", async () => {
    const config = testConfig({ thresholds: { minConfidence: 0.95, guardrailTimeoutMs: 1000 } });
    expect((await verdictOf(confidenceGuardrail, turnInput({ config, reply: { confidence: 0.9 } }))).outcome).toBe(
      'escalate',
    );
  });

  it('leaves a missing reply to reply-schema', async () => {
    expect((await verdictOf(confidenceGuardrail, turnInput({ reply: null }))).outcome).toBe('pass');
  });
});
