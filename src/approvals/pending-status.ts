import type { PinnedTerms } from '../../core/pinned-terms.js';
import type { RuntimeWords } from '../../core/runtime-words.js';
import type { StagedAction } from '../../core/staged-action.js';
import type { TenantConfig } from '../../core/tenant/tenant-config.js';
import { describeActions } from '../../core/tenant/tenant-words.js';

/**
 * What the contact is told about gated actions is the runtime's to say, not the model's: one line,
 * from the rows themselves, in the contact's language (core/runtime-words.ts), added after the
 * model's text. It says what waits and for whom — never that it happened. (The completion-claims
 * guardrail vetoes a model text that says otherwise.)
 */
type Described = Pick<StagedAction, 'kind' | 'args' | 'summary'>;

/** The status line for the rows a turn points the contact to; '' when nothing waits. */
export function pendingStatusLine(
  words: RuntimeWords,
  confirmation: PinnedTerms | null,
  approvals: readonly PinnedTerms[],
  fields: TenantConfig['fields'] = [],
): string {
  return statusLine(
    words,
    confirmation?.actions ?? [],
    approvals.flatMap((a) => a.actions),
    fields,
  );
}

/**
 * The same line for gated actions not pinned yet (a shadow replay's, which writes no rows): the
 * confirm-gated ones ask for Yes or No, the approval-gated ones wait for a team member.
 */
export function stagedStatusLine(
  words: RuntimeWords,
  gated: readonly (Described & Pick<StagedAction, 'gate'>)[],
  fields: TenantConfig['fields'] = [],
): string {
  return statusLine(
    words,
    gated.filter((a) => a.gate === 'confirm'),
    gated.filter((a) => a.gate === 'approval'),
    fields,
  );
}

function statusLine(
  words: RuntimeWords,
  confirming: readonly Described[],
  waiting: readonly Described[],
  fields: TenantConfig['fields'],
): string {
  const lines: string[] = [];
  if (confirming.length) lines.push(words.say('confirmPrompt', { what: describeActions(words, confirming, fields) }));
  if (waiting.length) lines.push(words.say('approvalWait', { what: describeActions(words, waiting, fields) }));
  return lines.join('\n');
}

/** The model's text with the status line after it, the model's part cut if both would not fit. */
export function withPendingStatus(text: string, status: string, maxChars: number): string {
  if (!status) return text;
  const room = maxChars - status.length - 2;
  const kept = text.length > room ? `${text.slice(0, Math.max(0, room - 1))}…` : text;
  return kept ? `${kept}\n\n${status}` : status;
}
