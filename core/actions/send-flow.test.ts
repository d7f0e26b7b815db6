import { describe, expect, it } from 'vitest';
import { testConfig } from '../../test/support/guardrail-input.js';
import { recordingManyChatApi } from '../../test/support/recording-manychat-api.js';
import { sendFlow } from './send-flow.js';

const config = testConfig();
const brochure = config.flows.find((f) => f.name === 'brochure')!;

describe('send_flow', () => {
  it("resolves the model's flow name to the configured namespace, or refuses naming the allowed flows", () => {
    expect(sendFlow.tool!.resolve({ flow: 'brochure' }, config)).toEqual({
      ok: true,
      args: { flowNs: brochure.ns, flowName: 'brochure' },
      summary: `send flow "brochure" (${brochure.description})`,
    });
    const refused = sendFlow.tool!.resolve({ flow: 'pricing' }, config);
    expect(refused).toEqual({
      ok: false,
      refusal: `Refused: flow "pricing" is not configured. Allowed flows: ${config.flows.map((f) => f.name).join(', ')}.`,
    });
    expect(sendFlow.tool!.resolve({ flow: 42 }, config).ok).toBe(false);
  });
  it('checks a staged flow against the configuration: the name and the namespace', () => {
    expect(sendFlow.check({ flowNs: brochure.ns, flowName: 'brochure' }, config)).toBeNull();
    expect(sendFlow.check({ flowNs: brochure.ns, flowName: 'pricing' }, config)).toBe(
      'flow "pricing" is not configured',
    );
    expect(sendFlow.check({ flowNs: 'content_evil', flowName: 'brochure' }, config)).toContain(
      'not the configured one',
    );
    expect(sendFlow.check({ flowName: 'brochure' }, config)).toContain('invalid send_flow arguments');
  });
  it('acts on the flow as a resource, is not idempotent, and is performed with ManyChat sendFlow', async () => {
    expect(sendFlow.resource({ flowNs: brochure.ns, flowName: 'brochure' })).toBe('flow:brochure');
    expect(sendFlow.idempotent).toBe(false);
    const { api, calls } = recordingManyChatApi();
    expect(
      await sendFlow.perform('manychat', { manychat: api }, '4242', { flowNs: brochure.ns, flowName: 'brochure' }),
    ).toEqual({ ok: true });
    expect(calls).toEqual([['sendFlow', '4242', brochure.ns]]);
  });
});
