import { randomBytes } from 'node:crypto';
import type { SandboxState, SubscriberState } from './state.js';
import { ReplyError, type ApiRequest, type MessengerPage, type Reply, type Routed } from './types.js';

/** Messenger Send API (protocol doc 3.5-3.6) with Graph-style errors. */

const DAY_MS = 24 * 3600_000;
const MESSAGING_TYPES = ['RESPONSE', 'UPDATE', 'MESSAGE_TAG'];
const TAGS = ['CONFIRMED_EVENT_UPDATE', 'POST_PURCHASE_UPDATE', 'ACCOUNT_UPDATE', 'HUMAN_AGENT'];
const SENDER_ACTIONS = ['typing_on', 'typing_off', 'mark_seen'];
/** Messenger's documented limits: 2000-char text, 13 quick replies, 20-char titles. */
const MAX_TEXT = 2000;
const MAX_QUICK_REPLIES = 13;
const MAX_QR_TITLE = 20;

/** `/v23.0/<page>/messages`, `/v23.0/me/messages`, or the same without the version. */
export const MESSENGER_PATH = /^(?:\/v\d+\.\d+)?\/([^/]+)\/messages$/;
/** `GET /v23.0/me`: the page a page access token belongs to (the dashboard's token check). */
export const ME_PATH = /^(?:\/v\d+\.\d+)?\/me$/;
/** The Handover Protocol's edges (docs/protocols.md, Messenger handover). */
export const HANDOVER_PATH =
  /^(?:\/v\d+\.\d+)?\/([^/]+)\/(pass_thread_control|take_thread_control|release_thread_control)$/;

export function graphError(
  status: number,
  message: string,
  code: number,
  extra: { type?: string; error_subcode?: number; is_transient?: boolean } = {},
): Reply {
  const { type = 'OAuthException', ...rest } = extra;
  return { status, body: { error: { message, type, code, ...rest, fbtrace_id: randomBytes(8).toString('hex') } } };
}
const param = (message: string, extra: { error_subcode?: number } = {}) =>
  new ReplyError(graphError(400, `(#100) ${message}`, 100, extra));

function token(req: ApiRequest): string | undefined {
  const fromQuery = req.query.get('access_token');
  if (fromQuery) return fromQuery;
  return /^Bearer\s+(.+)$/i.exec(req.headers.get('authorization') ?? '')?.[1]?.trim();
}

function bodyObject(req: ApiRequest): Record<string, unknown> {
  if (req.json === undefined) throw param('The parameter recipient is required');
  if (req.json === 'malformed') throw param('Malformed JSON body');
  const v = req.json.value;
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw param('Request body must be a JSON object');
  return v as Record<string, unknown>;
}
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function checkQuickReplies(qrs: unknown): void {
  if (qrs === undefined) return;
  if (!Array.isArray(qrs)) throw param('param message[quick_replies] must be an array');
  if (qrs.length > MAX_QUICK_REPLIES)
    throw param(`param message[quick_replies] must have at most ${MAX_QUICK_REPLIES} items`);
  qrs.forEach((q: unknown, i) => {
    if (!isObject(q)) throw param(`param message[quick_replies][${i}] must be an object`);
    const type = q.content_type ?? 'text';
    if (!['text', 'user_phone_number', 'user_email'].includes(String(type)))
      throw param(`param message[quick_replies][${i}][content_type] is invalid`);
    if (type !== 'text') return;
    if (typeof q.title !== 'string' || !q.title || q.title.length > MAX_QR_TITLE)
      throw param(`param message[quick_replies][${i}][title] must be 1-${MAX_QR_TITLE} characters`);
    if (typeof q.payload !== 'string' && typeof q.payload !== 'number')
      throw param(`param message[quick_replies][${i}][payload] is required`);
  });
}

function checkMessage(message: unknown): void {
  if (!isObject(message)) throw param('param message must be an object');
  const { text, attachment } = message;
  if (text === undefined && attachment === undefined)
    throw param('Message cannot be empty, must provide valid attachment or text');
  if (text !== undefined && (typeof text !== 'string' || text.length === 0))
    throw param('param message[text] must be a non-empty string');
  if (typeof text === 'string' && text.length > MAX_TEXT)
    throw param(`Length of param message[text] must be less than or equal to ${MAX_TEXT}`);
  if (attachment !== undefined && !isObject(attachment)) throw param('param message[attachment] must be an object');
  checkQuickReplies(message.quick_replies);
}

/** Outside 24 h only MESSAGE_TAG sends pass; HUMAN_AGENT reaches 7 days. The real error: code 10, subcode 2018278. */
function checkWindow(state: SandboxState, sub: SubscriberState, body: Record<string, unknown>): void {
  const ageMs = state.now() - Date.parse(sub.lastInteraction);
  const tagged = body.messaging_type === 'MESSAGE_TAG';
  const limit = tagged ? (body.tag === 'HUMAN_AGENT' ? 7 * DAY_MS : Infinity) : DAY_MS;
  if (ageMs <= limit) return;
  throw new ReplyError(
    graphError(
      400,
      '(#10) This message is sent outside of allowed window. Learn more about the new policy here: https://developers.facebook.com/docs/messenger-platform/policy-overview',
      10,
      { error_subcode: 2018278 },
    ),
  );
}

function send(req: ApiRequest, state: SandboxState, page: MessengerPage, pathPage: string): Reply {
  if (pathPage !== 'me' && pathPage !== page.pageId) {
    throw new ReplyError(
      graphError(
        400,
        `Unsupported post request. Object with ID '${pathPage}' does not exist, cannot be loaded due to missing permissions, or does not support this operation`,
        100,
        { type: 'GraphMethodException', error_subcode: 33 },
      ),
    );
  }
  if (!/^application\/json\b/i.test(req.headers.get('content-type') ?? '') && req.json !== undefined)
    throw param('Content-Type must be application/json');
  const body = bodyObject(req);
  const recipient = body.recipient;
  if (!isObject(recipient) || (typeof recipient.id !== 'string' && typeof recipient.id !== 'number'))
    throw param('The parameter recipient is required');
  const hasMessage = body.message !== undefined;
  const action = body.sender_action;
  if (hasMessage === (action !== undefined)) throw param('Must send either message or state');
  if (action !== undefined && !SENDER_ACTIONS.includes(String(action)))
    throw param(`Param sender_action must be one of {${SENDER_ACTIONS.join(', ')}}`);
  if (hasMessage) {
    if (!MESSAGING_TYPES.includes(String(body.messaging_type)))
      throw param(`param messaging_type must be one of {${MESSAGING_TYPES.join(', ')}}`);
    if (body.messaging_type === 'MESSAGE_TAG' && !TAGS.includes(String(body.tag)))
      throw param(`Param tag must be one of {${TAGS.join(', ')}}`);
    checkMessage(body.message);
  }
  const recipientId = String(recipient.id);
  const sub = state.subscriber(page.pageId, recipientId);
  if (!sub) throw param('No matching user found', { error_subcode: 2018001 });
  checkWindow(state, sub, body);
  if (!hasMessage) return { status: 200, body: { recipient_id: recipientId } };
  return { status: 200, body: { recipient_id: recipientId, message_id: `m_${randomBytes(24).toString('base64url')}` } };
}

/**
 * `pass_thread_control` (target_app_id required: the Page Inbox or another numeric app id),
 * `take_thread_control` and `release_thread_control`: `{ success: true }`, the thread's owner
 * recorded on the subscriber; Graph errors (code 100) for a missing recipient, an unknown user or
 * a target that is not an app id; code 10 for releasing a thread this app does not hold.
 */
function handover(req: ApiRequest, state: SandboxState, page: MessengerPage, pathPage: string, edge: string): Reply {
  if (pathPage !== 'me' && pathPage !== page.pageId) {
    throw new ReplyError(
      graphError(
        400,
        `Unsupported post request. Object with ID '${pathPage}' does not exist, cannot be loaded due to missing permissions, or does not support this operation`,
        100,
        { type: 'GraphMethodException', error_subcode: 33 },
      ),
    );
  }
  const body = bodyObject(req);
  const recipient = body.recipient;
  if (!isObject(recipient) || (typeof recipient.id !== 'string' && typeof recipient.id !== 'number'))
    throw param('The parameter recipient is required');
  const sub = state.subscriber(page.pageId, String(recipient.id));
  if (!sub) throw param('No matching user found', { error_subcode: 2018001 });
  if (body.metadata !== undefined && (typeof body.metadata !== 'string' || body.metadata.length > 1000))
    throw param('param metadata must be a string of at most 1000 characters');
  if (edge === 'pass_thread_control') {
    const target = body.target_app_id;
    if (target === undefined) throw param('The parameter target_app_id is required');
    if (!/^\d{1,30}$/.test(String(target))) throw param('param target_app_id must be a valid app ID');
    sub.threadOwnerAppId = String(target);
  } else if (edge === 'take_thread_control') {
    delete sub.threadOwnerAppId;
  } else {
    if (sub.threadOwnerAppId)
      throw new ReplyError(graphError(400, '(#10) Only the thread owner can release the thread', 10));
    delete sub.threadOwnerAppId;
  }
  return { status: 200, body: { success: true } };
}

/**
 * Matches a Send API path. Token problems answer HTTP 400 with OAuthException code 190 (or 2500
 * when absent), as the Graph API does; only POST is served.
 */
export function routeMessenger(req: ApiRequest, state: SandboxState): Routed | undefined {
  if (ME_PATH.test(req.path)) return whoAmI(req, state);
  const handoverMatch = HANDOVER_PATH.exec(req.path);
  const pathPage = MESSENGER_PATH.exec(req.path)?.[1] ?? handoverMatch?.[1];
  if (!pathPage) return undefined;
  const tok = token(req);
  const page = tok ? state.messengerPageByToken(tok) : undefined;
  return {
    api: 'messenger',
    pageId: page?.pageId ?? (pathPage === 'me' ? undefined : pathPage),
    run: () => {
      if (!tok)
        return graphError(
          400,
          'An active access token must be used to query information about the current user.',
          2500,
        );
      if (!page) return graphError(400, 'Invalid OAuth access token - Cannot parse access token', 190);
      if (req.method !== 'POST')
        return graphError(400, `(#100) Unsupported ${req.method} request on /${handoverMatch?.[2] ?? 'messages'}`, 100);
      return handoverMatch ? handover(req, state, page, pathPage, handoverMatch[2]!) : send(req, state, page, pathPage);
    },
  };
}

/** `GET /me` with a page token: `{ id, name }` of its page, as the Graph API answers; code 190 for a token it does not know. */
function whoAmI(req: ApiRequest, state: SandboxState): Routed {
  const tok = token(req);
  const page = tok ? state.messengerPageByToken(tok) : undefined;
  return {
    api: 'messenger',
    ...(page ? { pageId: page.pageId } : {}),
    run: () => {
      if (!tok)
        return graphError(
          400,
          'An active access token must be used to query information about the current user.',
          2500,
        );
      if (!page) return graphError(400, 'Invalid OAuth access token - Cannot parse access token', 190);
      if (req.method !== 'GET') return graphError(400, `(#100) Unsupported ${req.method} request on /me`, 100);
      return { status: 200, body: { id: page.pageId, name: `Sandbox page ${page.pageId}` } };
    },
  };
}
