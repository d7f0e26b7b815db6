import { findActionKind } from '../actions/index.js';
import { resourceRef } from '../actions/resource-words.js';
import { fieldLabel } from '../actions/set-field.js';
import { runtimeWords, type RuntimeWords, type WordKey } from '../runtime-words.js';
import type { TenantConfig } from './tenant-config.js';

/** What the words read of a config (a pinned row's decision may only have part of one). */
export type WordsConfig = Pick<
  TenantConfig,
  'locale' | 'words' | 'handoff' | 'holdingReply' | 'fallbackReply' | 'suspendedReply'
> & {
  guardrails: { rateLimit: { reply: string } };
  fields?: TenantConfig['fields'];
};

/**
 * The runtime's words for one contact of this tenant (core/runtime-words.ts): the texts the
 * tenant wrote in its config stand for their key in the tenant's locale.
 */
export function tenantWords(config: WordsConfig, contactLanguage?: string | null): RuntimeWords {
  const own: Partial<Record<WordKey, string>> = {
    handoffReply: config.handoff.reply,
    holdingReply: config.holdingReply,
    fallbackReply: config.fallbackReply,
    suspended: config.suspendedReply,
    rateLimited: config.guardrails.rateLimit.reply,
  };
  return runtimeWords({ locale: config.locale, words: config.words, own }, contactLanguage);
}

/**
 * An action as the contact reads it, in their language: its kind's `contactWords` filled with the
 * resource's name (a field's label and the value), else — a kind without words, or system
 * content with no resource — its summary. No kind is named here: the kind carries its words.
 */
export function describeAction(
  words: RuntimeWords,
  action: { kind: string; args: Record<string, unknown>; summary: string },
  fields: TenantConfig['fields'] = [],
): string {
  const kind = findActionKind(action.kind);
  const ref = resourceRef(kind?.resource(action.args) ?? null);
  if (!kind?.contactWords || !ref) return action.summary;
  const { name } = ref;
  const field = ref.type === 'field' ? fields.find((f) => f.name === name) : undefined;
  return words.say(kind.contactWords, {
    name: name.replace(/_/g, ' '),
    label: fieldLabel(field ?? { name }),
    value: String(action.args.value ?? ''),
    summary: action.summary,
  });
}

/** Several actions in one line. */
export function describeActions(
  words: RuntimeWords,
  actions: readonly { kind: string; args: Record<string, unknown>; summary: string }[],
  fields: TenantConfig['fields'] = [],
): string {
  return actions.map((a) => describeAction(words, a, fields)).join(words.say('listSeparator'));
}
