import { actionKind } from '../actions/index.js';
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

/** An action as the contact reads it, in their language (the kind's summary for kinds without words). */
export function describeAction(
  words: RuntimeWords,
  action: { kind: string; args: Record<string, unknown>; summary: string },
  fields: TenantConfig['fields'] = [],
): string {
  const resource = actionKind(action.kind as Parameters<typeof actionKind>[0]).resource(action.args) ?? '';
  const name = resource.slice(resource.indexOf(':') + 1).replace(/_/g, ' ');
  const summary = action.summary;
  switch (action.kind) {
    case 'send_flow':
      return words.say('actionSendFlow', { name, summary });
    case 'send_content':
      return resource ? words.say('actionSendContent', { name, summary }) : summary;
    case 'add_tag':
      return words.say('actionAddTag', { name, summary });
    case 'remove_tag':
      return words.say('actionRemoveTag', { name, summary });
    case 'set_field': {
      const field = String(action.args.field ?? '');
      const label = fieldLabel(fields.find((f) => f.name === field) ?? { name: field });
      return words.say('actionSetField', { label, value: String(action.args.value), summary });
    }
    default:
      return action.summary;
  }
}

/** Several actions in one line. */
export function describeActions(
  words: RuntimeWords,
  actions: readonly { kind: string; args: Record<string, unknown>; summary: string }[],
  fields: TenantConfig['fields'] = [],
): string {
  return actions.map((a) => describeAction(words, a, fields)).join(words.say('listSeparator'));
}
