import { parseUntrustedJson } from '../../http/untrusted-json.js';
import { z } from 'zod';
import { parseTenantConfig, type TenantConfig } from '../../../core/tenant/tenant-config.js';
import { REPLAY_TURNS_PER_MINUTE } from '../../replay/replay-limit.js';
import type { TurnFilter } from '../../replay/select-turns.js';

const TURN_ID = /^[A-Za-z0-9_.:@-]{1,200}$/;

/** A `datetime-local` value (or a full ISO instant), read as UTC. */
const Instant = z
  .string()
  .trim()
  .transform((v, ctx) => {
    if (!v) return undefined;
    const date = new Date(/[zZ]|[+-]\d\d:\d\d$/.test(v) ? v : `${v}Z`);
    if (Number.isNaN(date.getTime())) {
      ctx.addIssue({ code: 'custom', message: 'a date and time, e.g. 2026-12-01T09:30 (UTC)' });
      return z.NEVER;
    }
    return date.toISOString();
  });

export const ReplayFormSchema = z
  .object({
    ids: z
      .string()
      .max(20_000)
      .default('')
      .transform((v) => v.split(/[\s,]+/).filter(Boolean))
      .refine(
        (ids) => ids.every((id) => TURN_ID.test(id)),
        'turn ids are letters, digits and _ . : @ - only, one a line',
      )
      .refine(
        (ids) => ids.length <= REPLAY_TURNS_PER_MINUTE.tokens,
        `at most ${REPLAY_TURNS_PER_MINUTE.tokens} turn ids`,
      ),
    decision: z
      .enum(['', 'pass', 'veto', 'escalate', 'error'], { message: 'pass, veto, escalate, error or any' })
      .default(''),
    contact: z
      .string()
      .trim()
      .max(200)
      .regex(/^[A-Za-z0-9_.:@-]*$/, 'a contact id: letters, digits and _ . : @ - only')
      .default(''),
    since: Instant.default(''),
    until: Instant.default(''),
    limit: z.coerce
      .number({ message: 'a whole number' })
      .int('a whole number')
      .min(1, 'at least 1')
      .max(REPLAY_TURNS_PER_MINUTE.tokens, `at most ${REPLAY_TURNS_PER_MINUTE.tokens}`)
      .default(50),
    config: z.string().trim().min(1, 'paste a candidate config (JSON)').max(200_000, 'at most 200,000 characters'),
    model: z.literal('yes').optional(),
  })
  .superRefine((f, ctx) => {
    // Each turn the model answers can make two model calls from this one request: keep a run well
    // inside a Worker request's subrequest budget.
    if (f.model !== 'yes') return;
    if (f.ids.length > MODEL_ANSWERED_TURNS)
      ctx.addIssue({
        code: 'custom',
        path: ['ids'],
        message: `at most ${MODEL_ANSWERED_TURNS} turn ids when your model answers`,
      });
    if (!f.ids.length && f.limit > MODEL_ANSWERED_TURNS)
      ctx.addIssue({
        code: 'custom',
        path: ['limit'],
        message: `at most ${MODEL_ANSWERED_TURNS} when your model answers`,
      });
  });

/** Turns in one run when the tenant's model answers changed requests (each may call it twice). */
export const MODEL_ANSWERED_TURNS = 100;

export type ReplayForm = z.input<typeof ReplayFormSchema>;

/** The form's fields as typed, to show them again. */
export function echoOf(form: Record<string, unknown>): Record<string, string> {
  return Object.fromEntries(
    ['ids', 'decision', 'contact', 'since', 'until', 'limit', 'config', 'model'].map((k) => [
      k,
      typeof form[k] === 'string' ? (form[k] as string) : '',
    ]),
  );
}

export type ParsedReplayForm =
  | { ok: true; filter: TurnFilter; candidate: TenantConfig; useModel: boolean }
  | { ok: false; errors: Record<string, string> };

/**
 * The replay form of the session's tenant: the turn selection and the candidate config. The
 * config must be valid, and of this tenant: a config naming another tenant is refused (its
 * turns would not be this tenant's to replay), one naming none is taken as this tenant's.
 */
export function parseReplayForm(form: Record<string, unknown>, tenantId: string): ParsedReplayForm {
  const parsed = ReplayFormSchema.safeParse(form);
  if (!parsed.success)
    return {
      ok: false,
      errors: Object.fromEntries(parsed.error.issues.map((i) => [String(i.path[0] ?? 'config'), i.message])),
    };
  const f = parsed.data;
  const json = parseUntrustedJson(f.config);
  if (!json.ok) return { ok: false, errors: { config: `the candidate config: ${json.error.replace(/^body /, '')}` } };
  const raw: unknown = json.value;
  if (!raw || typeof raw !== 'object' || Array.isArray(raw))
    return { ok: false, errors: { config: 'the candidate config must be a JSON object' } };
  const named = (raw as { tenantId?: unknown }).tenantId;
  if (named !== undefined && named !== tenantId)
    return {
      ok: false,
      errors: { config: `the candidate config is of tenant "${String(named)}", not yours (${tenantId})` },
    };
  const config = parseTenantConfig({ ...raw, tenantId });
  if (!config.ok)
    return { ok: false, errors: { config: `the candidate config is not valid: ${config.problems.join('; ')}` } };
  const filter: TurnFilter = {
    ...(f.ids.length ? { ids: f.ids } : {}),
    limit: f.limit,
    ...(f.decision ? { decision: f.decision } : {}),
    ...(f.contact ? { contact: f.contact } : {}),
    ...(f.since ? { since: f.since } : {}),
    ...(f.until ? { until: f.until } : {}),
  };
  return { ok: true, filter, candidate: config.config, useModel: f.model === 'yes' };
}
