import type { ApiFailure, ApiResult, ManyChatApi } from '../core/actions/channel-api.js';
import { postJson } from './post-json.js';
import { manyChatWindow, renderManyChatContent } from '../core/manychat-channels.js';

/**
 * A small typed client for the ManyChat public API endpoints the outbox performs
 * (docs/protocols.md, ManyChat public API). It never throws for an API or network failure: every
 * call answers a `ApiResult` that says whether a retry can help, so the ledger rules in
 * `deliver-entry.ts` can decide without parsing errors. It never logs; the API key is only ever
 * placed in the Authorization header.
 */

export interface ManyChatClientOptions {
  /** e.g. https://api.manychat.com (env MANYCHAT_API_URL); a trailing slash is ignored. */
  baseUrl: string;
  apiKey: string;
  fetch: typeof fetch;
  /** Per call. Keep it well under the delivery lease so a hung call cannot outlive the lease. */
  timeoutMs: number;
  /** The clock the messaging window is judged by (tests); Date.now otherwise. */
  now?: () => number;
}

export const DEFAULT_MANYCHAT_TIMEOUT_MS = 10_000;
/** QStash caps Retry-After at a day; so do we. */
const MAX_RETRY_AFTER_SECONDS = 86_400;
const MAX_MESSAGE_CHARS = 500;

/** ManyChat ids are ints; the contact id arrives as a string. Send a number when it is one. */
function subscriberIdValue(id: string): number | string {
  if (/^\d{1,15}$/.test(id)) {
    const n = Number(id);
    if (Number.isSafeInteger(n)) return n;
  }
  return id;
}

/** `Retry-After` as seconds: delta-seconds or an HTTP date (RFC 9110 §10.2.3). */
export function parseRetryAfter(value: string | null, nowMs = Date.now()): number | undefined {
  if (value === null) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Math.min(Number(trimmed), MAX_RETRY_AFTER_SECONDS);
  const at = Date.parse(trimmed);
  if (Number.isNaN(at)) return undefined;
  return Math.min(Math.max(0, Math.ceil((at - nowMs) / 1000)), MAX_RETRY_AFTER_SECONDS);
}

interface Envelope {
  status?: unknown;
  message?: unknown;
  code?: unknown;
  details?: { messages?: { message?: unknown }[] };
}

/** The API's own words: the message plus any validation details, bounded. */
function envelopeMessage(body: Envelope | null, fallback: string): string {
  const parts: string[] = [];
  if (body && typeof body.message === 'string' && body.message) parts.push(body.message);
  const details = body?.details?.messages;
  if (Array.isArray(details)) {
    for (const d of details)
      if (d && typeof d.message === 'string' && !parts[0]?.includes(d.message)) parts.push(d.message);
  }
  const text = parts.join('; ') || fallback;
  return text.length > MAX_MESSAGE_CHARS ? `${text.slice(0, MAX_MESSAGE_CHARS - 1)}…` : text;
}

function parseEnvelope(text: string): Envelope | null {
  try {
    const value: unknown = JSON.parse(text);
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Envelope) : null;
  } catch {
    return null;
  }
}

/** Maps one HTTP answer to a result. The `status` string decides success, not only the HTTP code. */
export function classifyResponse(status: number, text: string, retryAfter: string | null): ApiResult {
  const body = parseEnvelope(text);
  // 429 and 503 are refusals: ManyChat did not take the request on, so it was not performed and
  // is safe to retry (honouring Retry-After). Any other 5xx (500, 502, 504, …) and 408 may have
  // come after ManyChat performed the call — an error on the way back, a proxy giving up while
  // it worked — so the outcome is unknown, like a client timeout: a send is never resent
  // automatically (at most once), an idempotent action is simply tried again.
  if (status === 408 || (status >= 500 && status !== 503))
    return {
      ok: false,
      kind: 'timeout',
      message: `HTTP ${status}: ${envelopeMessage(body, status === 408 || status === 504 ? 'the gateway timed out' : 'server error')}`,
    };
  if (status === 429 || status === 503) {
    const retryAfterSeconds = parseRetryAfter(retryAfter);
    return {
      ok: false,
      kind: 'retryable',
      status,
      message: envelopeMessage(body, `HTTP ${status}`),
      ...(retryAfterSeconds !== undefined ? { retryAfterSeconds } : {}),
    };
  }
  const is2xx = status >= 200 && status < 300;
  if (is2xx && body?.status === 'success') return { ok: true };
  // A 2xx that neither confirms nor refuses (no envelope, or an unknown status string) was
  // accepted but not confirmed: it may have been performed, so the outcome is unknown.
  if (is2xx && body?.status !== 'error')
    return { ok: false, kind: 'timeout', message: `HTTP ${status} without a "status":"success" envelope` };
  const code = typeof body?.code === 'number' ? body.code : undefined;
  return {
    ok: false,
    kind: 'permanent',
    status,
    message: envelopeMessage(body, `HTTP ${status}`),
    ...(code !== undefined ? { code } : {}),
  };
}

export function createManyChatClient(opts: ManyChatClientOptions): ManyChatApi {
  const base = opts.baseUrl.replace(/\/+$/, '');

  const post = (path: string, body: Record<string, unknown>): Promise<ApiResult> =>
    postJson({
      fetch: opts.fetch,
      url: `${base}${path}`,
      bearerToken: opts.apiKey,
      body,
      timeoutMs: opts.timeoutMs,
      classify: classifyResponse,
    });

  return {
    sendFlow: (subscriberId, flowNs) =>
      post('/fb/sending/sendFlow', { subscriber_id: subscriberIdValue(subscriberId), flow_ns: flowNs }),
    sendContent: async (subscriberId, content, messageTag, target = {}) => {
      const channel = target.channel ?? 'facebook';
      // Outside Instagram's window or WhatsApp's session nothing automated may go: refused here,
      // before any call, so the ledger lists it as dead with the reason (never sent, never unknown).
      const window = manyChatWindow(channel, target.lastInboundAt, (opts.now ?? Date.now)());
      if (!window.ok) return { ok: false, kind: 'permanent', status: 0, message: window.why };
      return post('/fb/sending/sendContent', {
        subscriber_id: subscriberIdValue(subscriberId),
        data: { version: 'v2', content: renderManyChatContent(channel, content.text, content.quickReplies ?? []) },
        ...(messageTag && channel === 'facebook' ? { message_tag: messageTag } : {}),
      });
    },
    addTagByName: (subscriberId, tagName) =>
      post('/fb/subscriber/addTagByName', { subscriber_id: subscriberIdValue(subscriberId), tag_name: tagName }),
    removeTagByName: (subscriberId, tagName) =>
      post('/fb/subscriber/removeTagByName', { subscriber_id: subscriberIdValue(subscriberId), tag_name: tagName }),
    setCustomFieldByName: (subscriberId, fieldName, value) =>
      post('/fb/subscriber/setCustomFieldByName', {
        subscriber_id: subscriberIdValue(subscriberId),
        field_name: fieldName,
        field_value: value,
      }),
  };
}
