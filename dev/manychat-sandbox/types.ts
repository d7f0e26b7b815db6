/** Public fixture, call-record and fault types of the ManyChat/Messenger sandbox. */

export type FieldType = 'text' | 'number' | 'date' | 'datetime' | 'boolean';

export interface SandboxPage {
  pageId: string;
  /** ManyChat API key, form "<pageId>:<secret>". */
  apiKey: string;
  tags?: { id: number; name: string }[];
  customFields?: { id: number; name: string; type: FieldType }[];
  /** Flow namespaces that exist on the page (sendFlow targets, flow buttons). */
  flows?: string[];
  /** Titles of those flows, by ns (what getFlows reports as `name`). */
  flowNames?: Record<string, string>;
}

export interface SandboxSubscriber {
  pageId: string;
  /** Subscriber id / PSID (numeric string). */
  id: string;
  firstName?: string;
  lastName?: string;
  /** ISO time of the contact's last message; drives the 24 h window. Absent: "now" at creation. */
  lastInteraction?: string;
  /** Field name -> value; names must exist on the page and values must match the field type. */
  customFields?: Record<string, unknown>;
  /** Tag names; they must exist on the page. */
  tags?: string[];
  /** The ManyChat channel the contact writes on (default Facebook): sendContent must carry its shape. */
  channel?: 'facebook' | 'instagram' | 'whatsapp' | 'telegram';
}

export interface MessengerPage {
  pageId: string;
  accessToken: string;
}

export type Api = 'manychat' | 'messenger';

export interface RecordedCall {
  seq: number;
  at: string;
  api: Api;
  method: string;
  path: string;
  /** Query parameters (access_token redacted); present when the URL had any. */
  query?: Record<string, string>;
  pageId?: string;
  /** Parsed JSON body; the raw text when it was not JSON; null when empty. */
  body: unknown;
  /** 0 while unanswered: a 'hang' fault never answers. */
  status: number;
  outcome: 'ok' | 'error' | 'fault';
  response: unknown;
}

/**
 * An injected fault: an HTTP status ManyChat or the Graph API may answer with, `hang` (never
 * answers), or `slow` (answers normally — the call is performed — after `delayMs`).
 */
export type FaultKind = '429' | '500' | '502' | '503' | '504' | 'hang' | 'slow';

export interface FaultSpec {
  /** Exact path, or a "/"-prefixed suffix such as "/messages" or "/addTag". Absent: any endpoint. */
  path?: string;
  /** Only calls that resolve to this page. */
  pageId?: string;
  count: number;
  kind: FaultKind;
  /** Sent as Retry-After on 429 and 503 faults. */
  retryAfterSeconds?: number;
  /** How long a `slow` fault waits before answering (default 3000 ms). */
  delayMs?: number;
}

export interface CallFilter {
  pageId?: string;
  path?: string;
  api?: Api;
  /** Only calls with seq greater than this. */
  since?: number;
}

/** What a route handler answers; the pipeline turns it into a Response and records it. */
export interface Reply {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

/** Thrown by handlers to answer early with an error reply. */
export class ReplyError extends Error {
  constructor(readonly reply: Reply) {
    super(`sandbox reply ${reply.status}`);
  }
}

/** One inbound API request, body already read. */
export interface ApiRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: Headers;
  text: string;
  /** undefined when the body is empty; `malformed` when it is not JSON. */
  json: { value: unknown } | 'malformed' | undefined;
}

/** A request matched to an API endpoint: the page it resolves to (for records and faults) and how to answer it. */
export interface Routed {
  api: Api;
  pageId?: string;
  run(): Reply;
}
