import type { ManyChatCallbackButton, ManyChatChannel } from '../manychat-channels.js';

/**
 * The outbound calls an action kind may make, per channel. The implementations (HTTP clients)
 * live in outbox/; the ground floor only names what they answer, so an action kind can say how
 * it is performed without knowing about fetch, keys or retries.
 */
export type ApiResult =
  | { ok: true; /** Said when the call was recorded without calling anything. */ note?: string }
  /** The API refused the call (429, 503): it surely did not perform it, so it is safe to try again, even a send. */
  | { ok: false; kind: 'retryable'; status: number; message: string; retryAfterSeconds?: number }
  /**
   * No answer in time, the connection failed mid-request, a 500/502/504/408, or a 2xx that did
   * not confirm: the call may or may not have happened. Callers must treat the outcome as unknown.
   */
  | { ok: false; kind: 'timeout'; message?: string }
  /** The API refused the call in a way a retry cannot fix (bad id, outside the 24 h window). */
  | { ok: false; kind: 'permanent'; status: number; message: string; code?: number };

export type ApiFailure = Exclude<ApiResult, { ok: true }>;

export type { ManyChatCallbackButton } from '../manychat-channels.js';

/** The ManyChat public API endpoints the outbox performs (docs/protocols.md, ManyChat public API). */
export interface ManyChatApi {
  sendFlow(subscriberId: string, flowNs: string): Promise<ApiResult>;
  /**
   * `target.channel`: the contact's ManyChat channel (the v2 shape: `content.type`, where buttons
   * go); `target.lastInboundAt`: the contact's last message there (the channel's messaging window).
   */
  sendContent(
    subscriberId: string,
    content: { text: string; quickReplies?: ManyChatCallbackButton[] },
    messageTag?: string,
    target?: { channel?: ManyChatChannel; lastInboundAt?: string },
  ): Promise<ApiResult>;
  addTagByName(subscriberId: string, tagName: string): Promise<ApiResult>;
  removeTagByName(subscriberId: string, tagName: string): Promise<ApiResult>;
  setCustomFieldByName(subscriberId: string, fieldName: string, value: unknown): Promise<ApiResult>;
}

/** A Messenger quick reply (Send API `message.quick_replies[]`): a title, and a payload Meta hands back when pressed. */
export interface MessengerQuickReply {
  content_type: 'text';
  title: string;
  payload: string;
}

/**
 * The Messenger Send API (docs/protocols.md, Messenger). The client decides the
 * `messaging_type` from the 24-hour window: `RESPONSE` inside it; outside it only a message tag
 * the tenant allows, never `HUMAN_AGENT` for automated content; otherwise it refuses (permanent).
 */
export interface MessengerApi {
  sendMessage(
    psid: string,
    content: { text: string; quickReplies?: MessengerQuickReply[] },
    window: { lastInboundAt?: string; messageTag?: string },
  ): Promise<ApiResult>;
  /** `sender_action` (typing_on): no message, nothing that needs the ledger. */
  senderAction(psid: string, action: 'typing_on' | 'typing_off' | 'mark_seen'): Promise<ApiResult>;
  /** Handover Protocol: give the thread to another app (the Page Inbox); `{ success: true }` confirms. */
  passThreadControl(psid: string, targetAppId: string, metadata?: string): Promise<ApiResult>;
  /** Handover Protocol: take the thread back (our app is the Primary Receiver); `{ success: true }` confirms. */
  takeThreadControl(psid: string, metadata?: string): Promise<ApiResult>;
}

/**
 * A tenant's own HTTPS endpoint (approval notifications): a signed POST. `messageId` is the
 * Standard Webhooks `webhook-id`, the same on every retry, so the receiver can drop repeats.
 */
export interface WebhookApi {
  post(url: string, body: string, messageId: string): Promise<ApiResult>;
  /** The same POST to the tenant's sealed notification URL, opened for this delivery; refused for good when it has none. */
  postToSealedUrl(body: string, messageId: string): Promise<ApiResult>;
}

/** The clients a delivery holds, one per channel it can perform on (and the tenant's webhook). */
export interface ChannelApis {
  manychat?: ManyChatApi;
  messenger?: MessengerApi;
  webhook?: WebhookApi;
}
