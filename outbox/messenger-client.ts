import type { ApiResult, MessengerApi } from '../core/actions/channel-api.js';
import { parseRetryAfter } from './manychat-client.js';
import { postJson } from './post-json.js';

/**
 * A small typed client for the Messenger Send API (docs/protocols.md, Messenger):
 * `POST <graph>/me/messages` with the page access token. Like the ManyChat client it never throws
 * and never logs; the token travels only in the Authorization header.
 *
 * The 24-hour window is judged here, at the moment of sending (a deferred reply, a confirmation
 * pressed late, a re-driven dead letter — whenever it is performed): inside it the message goes
 * as `RESPONSE`; outside it only with a message tag the tenant allows, and never `HUMAN_AGENT`,
 * which Meta reserves for a human agent's own replies (everything the outbox sends is automated).
 * A send that may not go is refused before any call: permanent, so the ledger marks it dead with
 * these words.
 */
export interface MessengerClientOptions {
  /** e.g. https://graph.facebook.com/v23.0 (env MESSENGER_GRAPH_URL). */
  graphUrl: string;
  /**
   * The page access token, or how to find the token of the page a contact (a page-scoped id)
   * belongs to — a tenant with several pages. A resolver that finds none refuses the call
   * (permanent); one that throws (storage) is a retryable refusal: nothing was sent.
   */
  pageAccessToken: string | PageTokenOf;
  fetch: typeof fetch;
  timeoutMs: number;
  /** The tenant's `guardrails.messagingWindow.allowedMessageTags`. */
  allowedMessageTags: readonly string[];
  now?: () => number;
}

/** The token of the page `psid` wrote to; undefined: this tenant holds no token for that page. */
export type PageTokenOf = (psid: string) => Promise<{ token: string } | { missing: string }>;

export const DEFAULT_MESSENGER_TIMEOUT_MS = 10_000;
export const MESSENGER_WINDOW_MS = 24 * 3600_000;
const MAX_MESSAGE_CHARS = 500;
/** Graph error codes that mean "too many calls": refused, safe to retry. */
const RATE_LIMIT_CODES = new Set([4, 17, 32, 613]);

function refuse(message: string): ApiResult {
  return { ok: false, kind: 'permanent', status: 0, message };
}

export type WindowDecision =
  | { ok: true; messaging: { messaging_type: 'RESPONSE' } | { messaging_type: 'MESSAGE_TAG'; tag: string } }
  | { ok: false; why: string };

/** RESPONSE inside the window; outside it an allowed tag that is not HUMAN_AGENT; else why not. */
export function messengerWindow(
  window: { lastInboundAt?: string; messageTag?: string },
  allowedTags: readonly string[],
  nowMs: number,
): WindowDecision {
  // With no time of the contact's last message (a notice pinned before the channel recorded it),
  // the Send API's own window check decides: a refusal comes back as a permanent error.
  if (window.lastInboundAt === undefined) return { ok: true, messaging: { messaging_type: 'RESPONSE' } };
  const last = Date.parse(window.lastInboundAt);
  if (Number.isNaN(last))
    return {
      ok: false,
      why: `the contact's last message time "${window.lastInboundAt.slice(0, 40)}" is not readable; not sent (fail closed)`,
    };
  const ageMs = nowMs - last;
  if (ageMs <= MESSENGER_WINDOW_MS) return { ok: true, messaging: { messaging_type: 'RESPONSE' } };
  const hours = Math.floor(ageMs / 3600_000);
  const tag = window.messageTag;
  if (!tag)
    return {
      ok: false,
      why: `outside the 24-hour window (${hours} h since the contact's last message) and no message tag; not sent`,
    };
  if (tag === 'HUMAN_AGENT')
    return {
      ok: false,
      why: "outside the 24-hour window: HUMAN_AGENT is reserved for a human agent's own replies and automated content is never sent under it; not sent",
    };
  if (!allowedTags.includes(tag))
    return {
      ok: false,
      why: `outside the 24-hour window (${hours} h) and message tag ${tag} is not allowed for this tenant; not sent`,
    };
  return { ok: true, messaging: { messaging_type: 'MESSAGE_TAG', tag } };
}

interface GraphError {
  message?: unknown;
  code?: unknown;
  error_subcode?: unknown;
}

function parseBody(
  text: string,
): { error?: GraphError; message_id?: unknown; recipient_id?: unknown; success?: unknown } | null {
  try {
    const value: unknown = JSON.parse(text);
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as { error?: GraphError }) : null;
  } catch {
    return null;
  }
}

function errorText(status: number, error: GraphError | undefined): string {
  const code = typeof error?.code === 'number' ? ` code ${error.code}` : '';
  const sub = typeof error?.error_subcode === 'number' ? ` subcode ${error.error_subcode}` : '';
  const message = typeof error?.message === 'string' && error.message ? error.message : `HTTP ${status}`;
  const text = `Graph${code}${sub}: ${message}`;
  return text.length > MAX_MESSAGE_CHARS ? `${text.slice(0, MAX_MESSAGE_CHARS - 1)}…` : text;
}

/** One Graph answer as a result; `confirms` says what a 2xx must carry to count as performed. */
export function classifyGraphResponse(
  status: number,
  text: string,
  retryAfter: string | null,
  confirms: 'message_id' | 'recipient_id' | 'success',
): ApiResult {
  const body = parseBody(text);
  const code = typeof body?.error?.code === 'number' ? body.error.code : undefined;
  if (status === 429 || status === 503 || (code !== undefined && RATE_LIMIT_CODES.has(code))) {
    const retryAfterSeconds = parseRetryAfter(retryAfter);
    return {
      ok: false,
      kind: 'retryable',
      status,
      message: errorText(status, body?.error),
      ...(retryAfterSeconds !== undefined ? { retryAfterSeconds } : {}),
    };
  }
  // Past the request, a 5xx or 408 may have come after Meta delivered the message: unknown.
  if (status === 408 || status >= 500)
    return { ok: false, kind: 'timeout', message: `HTTP ${status}: ${errorText(status, body?.error)}` };
  if (status >= 200 && status < 300) {
    const confirmation = body?.[confirms as keyof typeof body];
    if (confirms === 'success' ? confirmation === true : typeof confirmation === 'string' && confirmation)
      return { ok: true };
    return { ok: false, kind: 'timeout', message: `HTTP ${status} without a ${confirms}` };
  }
  return {
    ok: false,
    kind: 'permanent',
    status,
    message: errorText(status, body?.error),
    ...(code !== undefined ? { code } : {}),
  };
}

export function createMessengerClient(opts: MessengerClientOptions): MessengerApi {
  const graph = opts.graphUrl.replace(/\/+$/, '');
  const now = opts.now ?? Date.now;

  const tokenOf = async (psid: string): Promise<{ token: string } | { failed: ApiResult }> => {
    if (typeof opts.pageAccessToken === 'string') return { token: opts.pageAccessToken };
    try {
      const found = await opts.pageAccessToken(psid);
      return 'token' in found ? found : { failed: refuse(found.missing) };
    } catch (err) {
      const name = err instanceof Error ? err.name : 'Error';
      return {
        failed: { ok: false, kind: 'retryable', status: 0, message: `the contact's page could not be read (${name})` },
      };
    }
  };
  const postTo = async (
    edge: string,
    body: { recipient: { id: string } } & Record<string, unknown>,
    confirms: 'message_id' | 'recipient_id' | 'success',
  ): Promise<ApiResult> => {
    const token = await tokenOf(body.recipient.id);
    if ('failed' in token) return token.failed;
    return postJson({
      fetch: opts.fetch,
      url: `${graph}/me/${edge}`,
      bearerToken: token.token,
      body,
      timeoutMs: opts.timeoutMs,
      classify: (status, text, retryAfter) => classifyGraphResponse(status, text, retryAfter, confirms),
    });
  };
  const post = (
    body: { recipient: { id: string } } & Record<string, unknown>,
    confirms: 'message_id' | 'recipient_id',
  ): Promise<ApiResult> => postTo('messages', body, confirms);

  return {
    async sendMessage(psid, content, window) {
      const decision = messengerWindow(window, opts.allowedMessageTags, now());
      if (!decision.ok) return refuse(decision.why);
      const message = {
        text: content.text,
        ...(content.quickReplies?.length ? { quick_replies: content.quickReplies } : {}),
      };
      return post({ recipient: { id: psid }, ...decision.messaging, message }, 'message_id');
    },
    senderAction: (psid, action) => post({ recipient: { id: psid }, sender_action: action }, 'recipient_id'),
    passThreadControl: (psid, targetAppId, metadata) =>
      postTo(
        'pass_thread_control',
        { recipient: { id: psid }, target_app_id: targetAppId, ...(metadata ? { metadata } : {}) },
        'success',
      ),
    takeThreadControl: (psid, metadata) =>
      postTo('take_thread_control', { recipient: { id: psid }, ...(metadata ? { metadata } : {}) }, 'success'),
  };
}
