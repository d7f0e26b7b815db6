import type { ActionKindDefinition } from './action-kind.js';
import { liveChat } from './live-chat.js';
import { notifyWebhook } from './notify-webhook.js';
import { passThreadControl } from './pass-thread-control.js';
import { sendContent } from './send-content.js';
import { sendFlow } from './send-flow.js';
import { setField } from './set-field.js';
import { addTag, removeTag } from './tag-kinds.js';

/**
 * Every action kind, by name. Adding a kind is one file beside this one (its definition and its
 * test) and one line here.
 */
export const ACTION_KINDS = {
  send_flow: sendFlow,
  send_content: sendContent,
  add_tag: addTag,
  remove_tag: removeTag,
  set_field: setField,
  live_chat: liveChat,
  notify_webhook: notifyWebhook,
  pass_thread_control: passThreadControl,
} as const satisfies Record<string, ActionKindDefinition>;

export type ActionKind = keyof typeof ACTION_KINDS;

export const ACTION_KIND_NAMES = Object.keys(ACTION_KINDS) as [ActionKind, ...ActionKind[]];

/** Kinds a tenant may offer to the model as a staging tool. */
export const STAGEABLE_KIND_NAMES = ACTION_KIND_NAMES.filter((k) => ACTION_KINDS[k].stageable);

export function actionKind(name: ActionKind): ActionKindDefinition {
  return ACTION_KINDS[name];
}

/** The kind of that name, or null (a read tool's kind, a name from stored data). */
export function findActionKind(name: string): ActionKindDefinition | null {
  return Object.hasOwn(ACTION_KINDS, name) ? ACTION_KINDS[name as ActionKind] : null;
}
