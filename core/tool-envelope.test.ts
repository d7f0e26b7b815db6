import { describe, expect, it } from 'vitest';
import { envelope, isNearMissEnvelope, isToolEnvelope } from './tool-envelope.js';

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
    expect(isToolEnvelope(null)).toBe(false);
    expect(isToolEnvelope(undefined)).toBe(false);
    expect(isToolEnvelope({ content: 'x', effects: [], status: 7 })).toBe(false);
  });
  it('a fourth key is never an envelope, wherever it sorts (before, between or after the three)', () => {
    // Keys are compared sorted: `extra` sorts first, `tool` and `url` after `status`, `data` between.
    for (const key of ['extra', 'data', 'tool', 'url', 'zzz']) {
      expect(isToolEnvelope({ content: 'x', effects: [], status: 'staged', [key]: 'https://evil.example' }), key).toBe(
        false,
      );
    }
  });
  it('only own keys count: a content, effects or status inherited from a prototype does not make an envelope', () => {
    const inheriting = (proto: object, own: object) => Object.assign(Object.create(proto) as object, own);
    expect(isToolEnvelope(inheriting({ content: 'x' }, { a: 1, effects: [], status: 'ok' }))).toBe(false);
    expect(isToolEnvelope(inheriting({ effects: [] }, { content: 'x', data: 1, status: 'ok' }))).toBe(false);
    expect(isToolEnvelope(inheriting({ status: 'ok' }, { content: 'x', effects: [], zzz: 1 }))).toBe(false);
  });
  it('validates each effect: exactly { actionId, kind, summary }, strings, and a kind the registry knows', () => {
    const effect = { actionId: 'turn.a1', kind: 'send_flow', summary: 'send flow "brochure"' };
    expect(isToolEnvelope({ content: 'x', effects: [effect], status: 'staged' })).toBe(true);
    for (const bad of [
      { ...effect, kind: 'wire_money' },
      { ...effect, kind: 'toString' },
      { ...effect, actionId: 1 },
      { ...effect, summary: null },
      { actionId: 'turn.a1', kind: 'send_flow' },
      { ...effect, url: 'https://evil.example' },
      'send_flow',
      null,
    ])
      expect(isToolEnvelope({ content: 'x', effects: [effect, bad], status: 'staged' }), JSON.stringify(bad)).toBe(
        false,
      );
  });
  it('recognises each of the four statuses', () => {
    for (const status of ['staged', 'ok', 'denied', 'error'])
      expect(isToolEnvelope({ content: '', effects: [], status })).toBe(true);
  });
  it('flags a near miss (a status with no effects array) for the log', () => {
    expect(isNearMissEnvelope({ content: 'x', status: 'staged' })).toBe(true);
    expect(isNearMissEnvelope({ content: 'x', effects: [], status: 'staged' })).toBe(false);
    expect(isNearMissEnvelope({ answer: 42 })).toBe(false);
    expect(isNearMissEnvelope(null)).toBe(false);
    expect(isNearMissEnvelope('status')).toBe(false);
  });
});

describe('envelope builders: only staged carries effects', () => {
  const effect = { actionId: 'turn.a1', kind: 'add_tag', summary: 'add tag "vip"' };
  it('staged carries its content and exactly the effects given', () => {
    expect(envelope.staged('Staged, not done.', [effect])).toEqual({
      content: 'Staged, not done.',
      effects: [effect],
      status: 'staged',
    });
  });
  it('ok, denied and error are their status with no effects (a refused action stages nothing)', () => {
    expect(envelope.ok('found it')).toEqual({ content: 'found it', effects: [], status: 'ok' });
    expect(envelope.denied('not allowed')).toEqual({ content: 'not allowed', effects: [], status: 'denied' });
    expect(envelope.error('failed')).toEqual({ content: 'failed', effects: [], status: 'error' });
  });
  it('every builder makes something isToolEnvelope recognises', () => {
    for (const built of [envelope.staged('s', [effect]), envelope.ok('o'), envelope.denied('d'), envelope.error('e')])
      expect(isToolEnvelope(built)).toBe(true);
  });
});
