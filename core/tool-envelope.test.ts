import { describe, expect, it } from 'vitest';
import { isNearMissEnvelope, isToolEnvelope } from './tool-envelope.js';

describe('result envelope recognition is strict', () => {
  it('recognises exactly { content, effects: [], status }', () => {
    expect(isToolEnvelope({ content: 'x', effects: [], status: 'staged' })).toBe(true);
    expect(isToolEnvelope({ status: 'denied', content: 'no', effects: [] })).toBe(true);
  });
  it('treats every other shape as plain content', () => {
    expect(isToolEnvelope({ content: 'x', status: 'staged' })).toBe(false); // no effects array
    expect(isToolEnvelope({ content: 'x', effects: {}, status: 'ok' })).toBe(false);
    expect(isToolEnvelope({ content: 'x', effects: [], status: 'done' })).toBe(false);
    expect(isToolEnvelope({ content: 'x', effects: [], status: 'ok', extra: 1 })).toBe(false);
    expect(isToolEnvelope({ content: 1, effects: [], status: 'ok' })).toBe(false);
    expect(isToolEnvelope([{ content: 'x', effects: [], status: 'ok' }])).toBe(false);
    expect(isToolEnvelope('staged')).toBe(false);
  });
  it('flags a near miss (a status with no effects array) for the log', () => {
    expect(isNearMissEnvelope({ content: 'x', status: 'staged' })).toBe(true);
    expect(isNearMissEnvelope({ content: 'x', effects: [], status: 'staged' })).toBe(false);
    expect(isNearMissEnvelope({ answer: 42 })).toBe(false);
  });
});
