import type { InboundMessage } from '../../../core/inbound-message.js';
import { MessagingItemSchema, type MessagingItem, type MessengerWebhook } from './events-schema.js';
import { readConfirmPayload, type ConfirmPayload } from './quick-replies.js';

/**
 * Every `entry[]` and every `messaging[]` item of one webhook, each as what we do with it:
 * - a message (text, attachments, a suggestion's quick reply, a postback we did not issue) → a
 *   turn, keyed by its `mid` so Meta's retries join the first turn;
 * - a press of one of our confirmation buttons (quick reply or postback payload) → the signed
 *   confirmation callback, no model;
 * - echoes of our own sends, deliveries, reads, reactions, handover `standby[]`, and items we cannot
 *   read (each with its reason; the others still run) → ignored.
 * Sorted by the time the contact acted (Meta may batch or reorder).
 */
/** How an ignored entry for a page the tenant does not own starts its reason (the route logs these). */
export const FOREIGN_PAGE = 'a page this tenant does not own:';

export type MessengerEvent =
  | { kind: 'message'; at: number; inbound: InboundMessage }
  | { kind: 'confirm'; at: number; contactId: string; key: string; payload: ConfirmPayload }
  /** The thread came back to this app (Handover Protocol): the contact's handoff silence ends. */
  | { kind: 'handback'; at: number; contactId: string }
  | { kind: 'ignored'; why: string };

/**
 * `ownedPages`: the tenant's pages (config `messenger.pages`). An entry for any other page — a
 * second page subscribed to the same app, a forged or misrouted event — is ignored and named
 * (`foreign page`), as is an item whose `recipient` is not the entry's page: a page-scoped id means
 * nothing on another page, and another page's contacts must never get this tenant's persona.
 */
export function readEvents(
  webhook: MessengerWebhook,
  tenantId: string,
  receivedAt: Date,
  ownedPages: ReadonlySet<string>,
  /** The tenant's Meta app (`messenger.appId`), when known: a handover to any other app is not ours. */
  appId?: string,
): MessengerEvent[] {
  const events: MessengerEvent[] = [];
  for (const entry of webhook.entry) {
    if (!ownedPages.has(entry.id)) {
      events.push({
        kind: 'ignored',
        why: `${FOREIGN_PAGE} ${entry.id} (${(entry.messaging?.length ?? 0) + (entry.standby?.length ?? 0)} item(s))`,
      });
      continue;
    }
    for (const raw of entry.messaging ?? []) {
      // One unreadable item (a new event type, a field of an unexpected type) must not make Meta
      // retry the whole batch for a day and a half: it is skipped, with the reason, and the rest run.
      const item = MessagingItemSchema.safeParse(raw);
      if (item.success && item.data.recipient && item.data.recipient.id !== entry.id && !item.data.message?.is_echo)
        events.push({
          kind: 'ignored',
          why: `${FOREIGN_PAGE} ${item.data.recipient.id} (an item's recipient under page ${entry.id})`,
        });
      else if (item.success) events.push(readItem(item.data, tenantId, receivedAt, entry.id, appId));
      else
        events.push({
          kind: 'ignored',
          why: `an item we cannot read (${item.error.issues
            .map((i) => `${i.path.join('.') || '(item)'}: ${i.message}`)
            .join('; ')
            .slice(0, 200)})`,
        });
    }
    if (entry.standby?.length)
      events.push(
        ...entry.standby.map(() => ({ kind: 'ignored' as const, why: 'standby (another app holds the thread)' })),
      );
  }
  const at = (e: MessengerEvent) => (e.kind === 'ignored' ? 0 : e.at);
  return events.sort((a, b) => at(a) - at(b));
}

function readItem(
  item: MessagingItem,
  tenantId: string,
  receivedAt: Date,
  pageId: string,
  appId: string | undefined,
): MessengerEvent {
  const contactId = item.sender.id;
  // No timestamp (not seen on messages, but not ours to assume): the time we received it.
  const at = item.timestamp ?? receivedAt.getTime();
  const handover = readHandover(item, appId);
  if (handover) return handover === 'back' ? { kind: 'handback', at, contactId } : { kind: 'ignored', why: handover };
  const message = item.message;
  if (message) {
    if (message.is_echo) return { kind: 'ignored', why: 'echo of our own message' };
    const payload = readConfirmPayload(message.quick_reply?.payload);
    if (payload) return { kind: 'confirm', at, contactId, key: `mid:${message.mid}`, payload };
    const attachments = (message.attachments ?? []).map((a) => ({
      type: a.type,
      ...(a.payload?.url ? { url: a.payload.url } : {}),
    }));
    if (!message.text?.trim() && !attachments.length)
      return { kind: 'ignored', why: 'a message with neither text nor attachments' };
    return {
      kind: 'message',
      at,
      inbound: inboundOf(
        tenantId,
        pageId,
        contactId,
        `mid:${message.mid}`,
        message.text ?? '',
        at,
        receivedAt,
        attachments,
      ),
    };
  }
  if (item.postback) {
    const { mid, payload, title } = item.postback;
    const key = mid ? `mid:${mid}` : `pb:${at}`;
    const confirm = readConfirmPayload(payload);
    if (confirm) return { kind: 'confirm', at, contactId, key, payload: confirm };
    // A button of the page's own (Get Started, a persistent menu item): its title is what the contact "said".
    const text = title ?? payload ?? '';
    if (!text.trim()) return { kind: 'ignored', why: 'a postback with neither title nor payload' };
    return { kind: 'message', at, inbound: inboundOf(tenantId, pageId, contactId, key, text, at, receivedAt, []) };
  }
  const what = ['delivery', 'read', 'reaction', 'optin', 'referral', 'account_linking', 'policy_enforcement'].find(
    (k) => k in item,
  );
  return { kind: 'ignored', why: what ? `${what} event` : 'an event of no kind we answer' };
}

/**
 * A Handover Protocol event (docs/messenger-pages.md). Meta sends `pass_thread_control` to the app
 * the thread was passed to, so one in our `messaging[]` is the inbox handing the contact back —
 * unless it names another new owner than our app. `take_thread_control` goes to the app that lost
 * the thread; it is a hand-back only when the new owner is our app (known by `messenger.appId`).
 */
function readHandover(item: MessagingItem, appId: string | undefined): 'back' | string | null {
  const passed = item.pass_thread_control;
  if (passed) {
    const to = passed.new_owner_app_id;
    return !to || !appId || to === appId ? 'back' : `a thread passed to another app (${to.slice(0, 30)})`;
  }
  const taken = item.take_thread_control;
  if (taken) {
    const to = taken.new_owner_app_id;
    return appId && to === appId ? 'back' : 'a thread taken by another app';
  }
  return null;
}

function inboundOf(
  tenantId: string,
  pageId: string,
  contactId: string,
  messageKey: string,
  text: string,
  at: number,
  receivedAt: Date,
  attachments: NonNullable<InboundMessage['attachments']>,
): InboundMessage {
  return {
    tenantId,
    channel: 'messenger',
    contactId,
    pageId,
    messageKey,
    text,
    ...(attachments.length ? { attachments } : {}),
    // The message's own time: the 24-hour window runs from it (a retry 30 h later is outside it).
    contact: { fields: {}, lastInteraction: new Date(at).toISOString() },
    receivedAt: receivedAt.toISOString(),
  };
}
