import { describe, expect, it } from 'vitest';
import { demoTenantConfig } from '../../../dev/demo-tenant.js';
import { MODEL_ANSWERED_TURNS, parseReplayForm } from './replay-form.js';

const config = JSON.stringify(demoTenantConfig('acme'));

describe('the replay form', () => {
  it('takes the newest N of a filter, or ids, with a valid config of this tenant', () => {
    const parsed = parseReplayForm({ limit: '20', decision: 'veto', config }, 'acme');
    expect(parsed).toMatchObject({ ok: true, useModel: false, filter: { limit: 20, decision: 'veto' } });
  });

  it("refuses another tenant's config, naming the field", () => {
    const parsed = parseReplayForm({ limit: '20', config }, 'other');
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(Object.keys(parsed.errors)).toEqual(['config']);
  });

  it("with the tenant's model answering, a run is at most 100 turns (two model calls each from one request)", () => {
    const over = parseReplayForm({ limit: String(MODEL_ANSWERED_TURNS + 1), model: 'yes', config }, 'acme');
    expect(over).toEqual({ ok: false, errors: { limit: `at most ${MODEL_ANSWERED_TURNS} when your model answers` } });
    const ids = Array.from({ length: MODEL_ANSWERED_TURNS + 1 }, (_, i) => `turn_${i}`).join('\n');
    expect(parseReplayForm({ ids, model: 'yes', config }, 'acme')).toEqual({
      ok: false,
      errors: { ids: `at most ${MODEL_ANSWERED_TURNS} turn ids when your model answers` },
    });
    expect(parseReplayForm({ limit: String(MODEL_ANSWERED_TURNS + 1), config }, 'acme').ok).toBe(true);
    expect(parseReplayForm({ limit: String(MODEL_ANSWERED_TURNS), model: 'yes', config }, 'acme')).toMatchObject({
      ok: true,
      useModel: true,
    });
  });
});
