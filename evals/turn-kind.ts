import type { TurnRecord } from '../core/turn-record.js';
import type { TenantConfig } from '../core/tenant/tenant-config.js';
import type { CaseTurn } from './case-format.js';

/**
 * What kind of turn it was, for latency per kind:
 * - `no-tool`: the model only replied;
 * - `staging-only`: every other tool call staged an action (the one-call path);
 * - `read-then-reply`: a read tool ran, so the model needed a second call;
 * - `deferred`: the webhook answered before the turn finished;
 * - `other`: refusals, model errors, turns without a model call (a contact with a human);
 * - `button-press`: a Yes/No press on a confirmation, answered without a model call;
 * - `tenant-decision`: an approve / reject through the tenant API, or an expiry by the cron;
 * - `messenger`: a Messenger message — the webhook answers 200 at once, so its latency is the time
 *   until the reply reached the Send API through the outbox.
 */
export type TurnKind =
  | 'no-tool'
  | 'staging-only'
  | 'read-then-reply'
  | 'deferred'
  | 'other'
  | 'button-press'
  | 'tenant-decision'
  | 'messenger'
  | 'instagram'
  | 'whatsapp'
  | 'telegram';
export const TURN_KINDS: TurnKind[] = [
  'no-tool',
  'staging-only',
  'read-then-reply',
  'deferred',
  'other',
  'button-press',
  'tenant-decision',
  'messenger',
  'instagram',
  'whatsapp',
  'telegram',
];
export const KIND_LABEL: Record<TurnKind, string> = {
  'no-tool': 'no tool',
  'staging-only': 'staging only',
  'read-then-reply': 'read then reply',
  deferred: 'deferred',
  other: 'other (refused, error, silent)',
  'button-press': 'Yes/No press (no model)',
  'tenant-decision': 'tenant decision (API, cron)',
  messenger: 'Messenger (to the Send API reply)',
  instagram: 'Instagram via ManyChat (every turn form)',
  whatsapp: 'WhatsApp via ManyChat (every turn form)',
  telegram: 'Telegram via ManyChat (every turn form)',
};

const REPLY = 'reply';

/** The kind of a finished turn, from its record (what actually happened). */
export function recordKind(record: Pick<TurnRecord, 'steps' | 'decision'> | null, deferred: boolean): TurnKind {
  if (deferred) return 'deferred';
  if (!record || !record.steps.length || record.decision === 'error') return 'other';
  const results = record.steps.flatMap((s) => s.toolResults).filter((r) => r.toolName !== REPLY);
  const calls = record.steps.flatMap((s) => s.toolCalls).filter((c) => c.toolName !== REPLY);
  if (!calls.length) return 'no-tool';
  if (results.some((r) => r.status === 'ok' || r.status === 'plain')) return 'read-then-reply';
  if (results.length === calls.length && results.every((r) => r.status === 'staged')) return 'staging-only';
  return 'other';
}

/** Names of the tenant's read tools (the rest stage). */
export function readToolNames(config: Pick<TenantConfig, 'tools'>): Set<string> {
  return new Set(config.tools.filter((t) => t.kind === 'lookup_contact' || t.kind === 'search_faq').map((t) => t.name));
}

/**
 * The kind a turn's script aims at (for the offline estimate and for choosing baseline variants);
 * null when the turn makes no model call or a scripted call fails.
 */
export function scriptKind(
  turn: Pick<CaseTurn, 'model'>,
  readTools: Set<string>,
): Exclude<
  TurnKind,
  'deferred' | 'button-press' | 'tenant-decision' | 'messenger' | 'instagram' | 'whatsapp' | 'telegram'
> | null {
  const steps = turn.model.slice(0, 2);
  if (!steps.length || steps.some((s) => s.error)) return null;
  const calls = steps.flatMap((s) => s.calls ?? []).filter((c) => c.tool !== REPLY);
  const replies = (s: (typeof steps)[number]) => s.reply !== undefined || s.replyRaw !== undefined;
  if (!calls.length) return steps.length === 1 && replies(steps[0]!) ? 'no-tool' : 'other';
  if (calls.some((c) => readTools.has(c.tool))) return 'read-then-reply';
  if (steps.length === 1 && replies(steps[0]!) && steps[0]!.reply) return 'staging-only';
  return 'other';
}
