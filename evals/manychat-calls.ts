import type { RecordedCall } from '../dev/manychat-sandbox.js';
import type { CaseWorld, EvalEnvironment } from './environment.js';
import type { CallView } from './observed.js';
import type { IssuedButton } from './turn-observation.js';

/** What the ManyChat sandbox recorded for a case's contact, in the case format's names. */

export function lastSeq<T extends { seq: number }>(items: T[]): number {
  return items.length ? items[items.length - 1]!.seq : 0;
}

function subscriberOf(c: RecordedCall): string | null {
  const body = c.body as Record<string, unknown> | null;
  if (body && body.subscriber_id !== undefined) return String(body.subscriber_id);
  // The Messenger Send API names the contact as the recipient (a PSID).
  const recipient = body?.recipient as { id?: unknown } | undefined;
  return recipient?.id !== undefined ? String(recipient.id) : null;
}

/** The sandbox's call cursor for the case's page (calls after it belong to the turn). */
export function manyChatCursor(env: EvalEnvironment, world: CaseWorld): number {
  return lastSeq(env.stack.manychat.calls({ pageId: world.pageId }));
}

/** Every call for one contact on the case's page since the cursor. */
export function contactCalls(env: EvalEnvironment, world: CaseWorld, contactId: string, since: number): RecordedCall[] {
  return env.stack.manychat.calls({ pageId: world.pageId, since }).filter((call) => subscriberOf(call) === contactId);
}

/** A sandbox call as the case format names it: sendFlow(flow name), addTag(tag name), setField(name=value). */
export function callView(c: RecordedCall, world: Pick<CaseWorld, 'config'>): CallView {
  const body = (c.body && typeof c.body === 'object' ? c.body : {}) as Record<string, unknown>;
  const base = { path: c.path, at: c.at, status: c.status, outcome: c.outcome };
  const last = c.path.split('/').pop() ?? c.path;
  const tagName = (): string | undefined =>
    typeof body.tag_name === 'string' ? body.tag_name : world.config.tags[Number(body.tag_id) - 1]?.name;
  const fieldName = (): string | undefined =>
    typeof body.field_name === 'string' ? body.field_name : world.config.fields[Number(body.field_id) - 100]?.name;
  switch (last) {
    case 'sendFlow': {
      const ns = String(body.flow_ns ?? '');
      return { call: 'sendFlow', ...base, flow: world.config.flows.find((f) => f.ns === ns)?.name ?? ns };
    }
    case 'sendContent':
      // The message texts (what the contact reads); the raw data when it carries none.
      return { call: 'sendContent', ...base, text: sentTexts(c).join('\n') || JSON.stringify(body.data ?? '') };
    case 'messages': {
      // A Messenger Send API message reads as a sendContent (the same action kind); a sender action as itself.
      const message = body.message as { text?: unknown } | undefined;
      if (!message) return { call: `senderAction:${String(body.sender_action ?? '')}`, ...base };
      return {
        call: 'sendContent',
        ...base,
        text: typeof message.text === 'string' ? message.text : JSON.stringify(message),
      };
    }
    case 'addTag':
    case 'addTagByName':
      return { call: 'addTag', ...base, tag: tagName() };
    case 'removeTag':
    case 'removeTagByName':
      return { call: 'removeTag', ...base, tag: tagName() };
    case 'pass_thread_control':
      return { call: 'passThreadControl', ...base, targetAppId: String(body.target_app_id ?? '') };
    case 'take_thread_control':
      return { call: 'takeThreadControl', ...base };
    case 'setCustomField':
    case 'setCustomFieldByName':
      return { call: 'setField', ...base, field: fieldName(), value: body.field_value };
    default:
      return { call: c.path, ...base };
  }
}

/** The text messages of a sendContent call (its Dynamic Block v2 `data`). */
export function sentTexts(c: RecordedCall): string[] {
  const data = (c.body as { data?: { content?: { messages?: { text?: unknown }[] } } } | null)?.data;
  return (data?.content?.messages ?? []).map((m) => (typeof m.text === 'string' ? m.text : '')).filter(Boolean);
}

/** The `dynamic_block_callback` quick replies of a Dynamic Block v2 content (a webhook answer or a sendContent). */
export function buttonsOf(content: unknown): IssuedButton[] {
  const c = content as { quick_replies?: unknown; messages?: { buttons?: unknown }[] } | null;
  // Quick replies (Facebook, Instagram), or buttons on the text messages (WhatsApp, Telegram).
  const onMessages = Array.isArray(c?.messages)
    ? c.messages.flatMap((m) => (Array.isArray(m?.buttons) ? m.buttons : []))
    : [];
  const replies = [...(Array.isArray(c?.quick_replies) ? c.quick_replies : []), ...onMessages];
  return replies.flatMap((q: Record<string, unknown>) =>
    q &&
    q.type === 'dynamic_block_callback' &&
    typeof q.caption === 'string' &&
    typeof q.url === 'string' &&
    q.payload &&
    typeof q.payload === 'object'
      ? [{ caption: q.caption, url: q.url, payload: q.payload as Record<string, unknown> }]
      : [],
  );
}

/** The buttons a successful sendContent carried (a deferred reply sends its buttons this way). */
export function sentButtons(c: RecordedCall): IssuedButton[] {
  return buttonsOf((c.body as { data?: { content?: unknown } } | null)?.data?.content);
}

/**
 * A sendContent the sandbox refused (400) for a contact on Instagram, WhatsApp or Telegram: the shape
 * ManyChat would refuse on that channel (content.type, quick replies, message types, limits). Every
 * turn form checks it — a webhook turn's deferred reply as much as a tenant decision's notice.
 */
export function refusedSendContent(world: Pick<CaseWorld, 'manyChatChannel'>, calls: RecordedCall[]): string[] {
  if (world.manyChatChannel === 'facebook') return [];
  return calls
    .filter((call) => call.path.endsWith('/sendContent') && call.status === 400)
    .map(
      (call) =>
        `ManyChat (${world.manyChatChannel}) refused sendContent: ${JSON.stringify(call.response ?? '').slice(0, 300)}`,
    );
}
