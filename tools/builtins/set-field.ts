import { tool } from 'ai';
import { z } from 'zod';
import { envelope } from '../../core/tool-envelope.js';
import type { ToolContext, WritePolicy } from '../tool-context.js';
import { stagedMessage } from '../staged-message.js';
import type { FieldConfig, ToolInstance } from '../../core/tenant/tenant-config.js';

/** Checks a value against the field's type and choices; returns a refusal sentence or the typed value. */
export function coerceFieldValue(field: FieldConfig, value: unknown): { ok: true; value: string | number | boolean } | { ok: false; why: string } {
  switch (field.type) {
    case 'number': {
      const n = typeof value === 'number' ? value : typeof value === 'string' && value.trim() !== '' ? Number(value) : NaN;
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
      if (typeof value !== 'string' && typeof value !== 'number') return { ok: false, why: `field "${field.name}" takes text` };
      const text = String(value);
      if (field.choices && !field.choices.includes(text)) {
        return { ok: false, why: `"${text}" is not a choice of field "${field.name}". Allowed values: ${field.choices.join(', ')}` };
      }
      if (text.length > 500) return { ok: false, why: `field "${field.name}" takes at most 500 characters` };
      return { ok: true, value: text };
    }
  }
}

/** Stages recording a value (e.g. the contact's choice) in one of the tenant's custom fields. */
export function setFieldTool(instance: ToolInstance, ctx: ToolContext, policy: WritePolicy) {
  const describe = (f: FieldConfig) => `${f.name} (${f.type}${f.choices ? `: ${f.choices.join('|')}` : ''})`;
  const allowed = ctx.config.fields.map((f) => f.name);
  return tool({
    description: `${instance.description} Fields: ${ctx.config.fields.map(describe).join('; ') || 'none configured'}.`,
    inputSchema: z.object({
      field: z.string().describe(`One of: ${allowed.join(', ') || '(none)'}`),
      value: z.union([z.string(), z.number(), z.boolean()]),
    }),
    execute: async ({ field, value }) => {
      const config = ctx.config.fields.find((f) => f.name === field);
      if (!config) return envelope.denied(`Refused: field "${field}" is not configured. Allowed fields: ${allowed.join(', ') || 'none'}.`);
      const checked = coerceFieldValue(config, value);
      if (!checked.ok) return envelope.denied(`Refused: ${checked.why}.`);
      const action = ctx.staging.stage({
        tool: instance.name,
        kind: 'set_field',
        args: { field, value: checked.value },
        effect: policy.effect,
        idempotent: true,
        gate: policy.gate,
        summary: `set field "${field}" to ${JSON.stringify(checked.value)}`,
      });
      return stagedMessage(action);
    },
  });
}
