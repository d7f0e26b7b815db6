import { describe, expect, it } from 'vitest';
import { testConfig } from '../../test/support/guardrail-input.js';
import { recordingManyChatApi } from '../../test/support/recording-manychat-api.js';
import { coerceFieldValue, setField } from './set-field.js';

const config = testConfig();
const field = (name: string) => config.fields.find((f) => f.name === name)!;

describe('set_field', () => {
  it('coerces values to the field type and refuses what does not fit', () => {
    expect(coerceFieldValue({ name: 'age', type: 'number' }, '42')).toEqual({ ok: true, value: 42 });
    expect(coerceFieldValue({ name: 'age', type: 'number' }, 'x').ok).toBe(false);
    expect(coerceFieldValue({ name: 'b', type: 'boolean' }, 'true')).toEqual({ ok: true, value: true });
    expect(coerceFieldValue({ name: 'b', type: 'boolean' }, 'yes').ok).toBe(false);
    expect(coerceFieldValue({ name: 'd', type: 'date' }, '2026-02-30').ok).toBe(true);
    expect(coerceFieldValue({ name: 'd', type: 'date' }, '30/01/2026').ok).toBe(false);
    expect(coerceFieldValue({ name: 'c', type: 'text', choices: ['yoga'] }, 'pilates')).toEqual({
      ok: false,
      why: '"pilates" is not a choice of field "c". Allowed values: yoga',
    });
    expect(coerceFieldValue({ name: 't', type: 'text' }, 'x'.repeat(501)).ok).toBe(false);
  });
  it("resolves the model's choice, or refuses naming the allowed fields or values", () => {
    expect(setField.tool!.resolve({ field: 'preferred_class', value: 'yoga' }, config)).toEqual({
      ok: true,
      args: { field: 'preferred_class', value: 'yoga' },
      summary: 'set preferred class to "yoga"',
    });
    // The label a person reads, else the name with spaces.
    expect(
      setField.summary(
        { field: 'preferred_class', value: 'yoga' },
        { ...config, fields: [{ name: 'preferred_class', type: 'text' }] },
      ),
    ).toBe('set preferred class to "yoga"');
    expect(
      setField.summary(
        { field: 'preferred_class', value: 'yoga' },
        { ...config, fields: [{ name: 'preferred_class', type: 'text', label: 'Lieblingskurs' }] },
      ),
    ).toBe('set Lieblingskurs to "yoga"');
    expect(setField.tool!.resolve({ field: 'shoe_size', value: 3 }, config)).toMatchObject({
      ok: false,
      refusal: expect.stringContaining('Allowed fields:'),
    });
    expect(setField.tool!.resolve({ field: 'preferred_class', value: 'boxing' }, config)).toMatchObject({
      ok: false,
      refusal: expect.stringContaining('Allowed values: yoga, pilates, meditation'),
    });
  });
  it("checks a staged value is the field's typed value", () => {
    expect(setField.check({ field: 'age', value: 3 }, config)).toBeNull();
    expect(setField.check({ field: 'age', value: '3' }, config)).toContain('not its typed value');
    expect(setField.check({ field: 'nope', value: 1 }, config)).toBe('field "nope" is not configured');
    expect(field('age').type).toBe('number');
  });
  it('acts on the field as a resource and is performed with setCustomFieldByName', async () => {
    expect(setField.resource({ field: 'age', value: 3 })).toBe('field:age');
    const { api, calls } = recordingManyChatApi();
    await setField.perform('manychat', { manychat: api }, '7', { field: 'age', value: 3 });
    expect(calls).toEqual([['setCustomFieldByName', '7', 'age', 3]]);
  });
});
