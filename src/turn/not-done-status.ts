import type { RuntimeWords } from '../../core/runtime-words.js';
import type { StagedAction } from '../../core/staged-action.js';
import type { TenantConfig } from '../../core/tenant/tenant-config.js';
import type { ModelStepRecord } from '../../core/turn-record.js';
import { describeActions } from '../../core/tenant/tenant-words.js';
import type { TurnDecision } from './decide-turn.js';

/**
 * What did NOT happen is the runtime's to say too, like what waits (src/approvals/pending-status.ts):
 * - a turn that was vetoed, escalated or failed performs none of the model's staged writes — the
 *   contact is told which, in their language ("Not done: add the tag …"), after the fallback or
 *   handoff reply, so a model's "done!" elsewhere in the conversation is contradicted by the runtime;
 * - a write a tool refused (a denied or failed staging call) is said as not done on every turn that
 *   answers, without naming it (the call's own words are the model's, not a row's).
 * The contact gets nothing when the turn is silent (with a human already).
 */
export function notDoneLine(
  words: RuntimeWords,
  decision: Pick<TurnDecision, 'decision' | 'replyRoute'>,
  draft: { staged: readonly StagedAction[]; steps: readonly ModelStepRecord[] },
  fields: TenantConfig['fields'] = [],
): string {
  if (decision.replyRoute === 'none') return '';
  const lines: string[] = [];
  const unperformed = decision.decision === 'pass' ? [] : draft.staged.filter((a) => !a.tool.startsWith('system:'));
  if (unperformed.length) lines.push(words.say('notDone', { what: describeActions(words, unperformed, fields) }));
  const refused = draft.steps.some((s) => s.toolResults.some((r) => r.status === 'denied' || r.status === 'error'));
  if (refused) lines.push(words.say('refusedNote'));
  return lines.join('\n');
}
