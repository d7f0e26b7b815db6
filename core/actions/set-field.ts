import { z } from 'zod';
import type { FieldView } from './config-view.js';
import { defineActionKind } from './action-kind.js';
import { MANYCHAT_CHANNELS } from '../manychat-channels.js';

type FieldValue = string | number | boolean;

/** Checks a value against the field's type and choices; returns a refusal sentence or the typed value. */
export function coerceFieldValue(
  field: FieldView,
  value: unknown,
): { ok: true; value: FieldValue } | { ok: false; why: string } {
  switch (field.type) {
    case 'number': {
      const n =
        typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : NaN;
      return Number.isFinite(n) ? { ok: true, value: n } : { ok: false, why: `field "${field.name}" takes a number` };
    }
    case 'boolean':
      if (typeof value === 'boolean') return { ok: true, value };
      if (value === 'true' || value === 'false') return { ok: true, value: value === 'true' };
      return { ok: false, why: `field "${field.name}" takes true or false` };
    case 'date':
      return typeof value === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(value) && !Number.isNaN(Date.parse(value))
        ? { ok: true, value }
        : { ok: false, why: `field "${field.name}" takes a date YYYY-MM-DD` };
    case 'text': {
      if (typeof value !== 'string' && typeof value !== 'number')
        return { ok: false, why: `field "${field.name}" takes text` };
      const text = String(value);
      if (field.choices && !field.choices.includes(text)) {
        return {
          ok: false,
          why: `"${text}" is not a choice of field "${field.name}". Allowed values: ${field.choices.join(', ')}`,
        };
      }
      if (text.length > 500) return { ok: false, why: `field "${field.name}" takes at most 500 characters` };
      return { ok: true, value: text };
    }
  }
}

/** How a person reads a field: its label, else its name with underscores as spaces. */
export function fieldLabel(field: Pick<FieldView, 'name' | 'label'>): string {
  return field.label ?? field.name.replace(/_/g, ' ');
}

const describeField = (f: FieldView) => `${f.name} (${f.type}${f.choices ? `: ${f.choices.join('|')}` : ''})`;

/** Records a value (e.g. the contact's choice) in one of the tenant's custom fields. */
export const setField = defineActionKind({
  name: 'set_field',
  args: z.object({ field: z.string().min(1), value: z.union([z.string(), z.number(), z.boolean()]) }),
  messagesContact: false,
  idempotent: true,
  resource: (args) => `field:${args.field}`,
  check(args, config) {
    const field = config.fields.find((f) => f.name === args.field);
    if (!field) return `field "${args.field}" is not configured`;
    const checked = coerceFieldValue(field, args.value);
    if (!checked.ok) return checked.why;
    if (checked.value !== args.value)
      return `field "${field.name}" was staged with ${JSON.stringify(args.value)}, which is not its typed value`;
    return null;
  },
  // Read by the contact (a confirmation) and the tenant (an approval card): the field's label, not its key.
  summary: (args, config) =>
    `set ${fieldLabel(config.fields.find((f) => f.name === args.field) ?? { name: args.field })} to ${JSON.stringify(args.value)}`,
  // Setting the field again (to its earlier value) undoes it; the earlier value is not known here.
  undoKind: 'set_field',
  contactWords: 'actionSetField',
  claims: ['field'],
  // ManyChat's API performs it on every channel it serves (docs/protocols.md).
  manyChatChannels: MANYCHAT_CHANNELS,
  perform: { manychat: (api, contactId, args) => api.setCustomFieldByName(contactId, args.field, args.value) },
  tool: {
    resources: (config) => config.fields.map((f) => `field:${f.name}`),
    narrow: (config, keep) => ({ ...config, fields: config.fields.filter((f) => keep(`field:${f.name}`)) }),
    describe: (config) => `Fields: ${config.fields.map(describeField).join('; ') || 'none configured'}.`,
    input: (config) =>
      z.object({
        field: z.string().describe(`One of: ${config.fields.map((f) => f.name).join(', ') || '(none)'}`),
        value: z.union([z.string(), z.number(), z.boolean()]),
      }),
    resolve({ field, value }, config) {
      const found = config.fields.find((f) => f.name === field);
      if (!found)
        return {
          ok: false,
          refusal: `Refused: field "${field}" is not configured. Allowed fields: ${config.fields.map((f) => f.name).join(', ') || 'none'}.`,
        };
      const checked = coerceFieldValue(found, value);
      if (!checked.ok) return { ok: false, refusal: `Refused: ${checked.why}.` };
      return { ok: true, args: { field, value: checked.value } };
    },
  },
});
