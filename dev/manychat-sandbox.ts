import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import { createSandboxApp, subscriberView } from './manychat-sandbox/http.js';
import { SandboxState } from './manychat-sandbox/state.js';
import type {
  CallFilter,
  FaultSpec,
  MessengerPage,
  RecordedCall,
  SandboxPage,
  SandboxSubscriber,
} from './manychat-sandbox/types.js';

/**
 * Local stand-in for api.manychat.com and the Messenger Send API (graph.facebook.com), for a
 * stack with no internet. Speaks the wire protocol of docs/protocols.md,
 * keeps subscriber state (tags, custom fields), records every call, and can be told to fail.
 *
 * Point MANYCHAT_API_URL at `url` and MESSENGER_GRAPH_URL at `${url}/v23.0`.
 *
 * Choices where the real API is undocumented (doc "Open uncertainties"):
 * - Missing/unknown ManyChat key: HTTP 401 + `{"status":"error","message":...}`.
 * - Rate limits: sliding 1 s window per API key per endpoint (sendFlow also 100/h per subscriber),
 *   answered 429 + error envelope, no Retry-After (the spec documents neither).
 * - subscriber_id / tag_id / field_id: an int or a digit string. field_value null clears a field.
 * - message_tag must be one of Meta's four tags; HUMAN_AGENT extends the window to 7 days.
 * - Bodies must be `Content-Type: application/json` (doc 2.1); Messenger too (form posts unsupported).
 * - Messenger token errors use HTTP 400 like the Graph API; there is no Messenger rate limit.
 * - A hung call stays recorded with status 0 and outcome 'fault'.
 * - Faults fire before auth and validation (they model an upstream outage); the page they match
 *   on is the one the key/token resolves to. Unknown paths are recorded (404) but never faulted.
 * - Bodies over 1 MB answer 413 and are not recorded.
 */

export type {
  CallFilter,
  FaultSpec,
  MessengerPage,
  RecordedCall,
  SandboxPage,
  SandboxSubscriber,
} from './manychat-sandbox/types.js';
export { FixtureError } from './manychat-sandbox/state.js';
import { V2Content, issueLines } from './manychat-sandbox/schemas.js';
import { channelProblems, type SandboxChannel } from './manychat-sandbox/channel-rules.js';
export type { SandboxChannel } from './manychat-sandbox/channel-rules.js';

export interface ManyChatSandboxOptions {
  port?: number;
  host?: string;
  pages?: SandboxPage[];
  subscribers?: SandboxSubscriber[];
  messengerPages?: MessengerPage[];
  /** Default true. */
  enforceRateLimits?: boolean;
  /** Clock in ms (default Date.now); lets tests move time for the 24 h window and hourly caps. */
  now?: () => number;
  /** Anyone who writes in is a subscriber: an unknown subscriber of a known page is created on its first API call (`npm start`). Default false. */
  autoSubscribers?: boolean;
}

export interface ManyChatSandbox {
  url: string;
  port: number;
  calls(filter?: CallFilter): RecordedCall[];
  /** Clears calls, faults and rate-limit counters; fixtures and subscriber state stay. */
  reset(): void;
  close(): Promise<void>;
  /** Add or replace fixtures; throw FixtureError naming bad fields. */
  addPage(page: SandboxPage): void;
  addMessengerPage(page: MessengerPage): void;
  addSubscriber(subscriber: SandboxSubscriber): void;
  /** Current state of a subscriber (tag names, fields by name), or undefined. */
  subscriber(pageId: string, id: string): SandboxSubscriber | undefined;
  /** A ManyChat page as configured (tags, fields, flows), or undefined. */
  page(pageId: string): SandboxPage | undefined;
  /** Marks an inbound message from the contact now, reopening the 24 h window; false if unknown. */
  touch(pageId: string, id: string): boolean;
  /** The next `count` matching calls answer 429 / 500 or hang. */
  injectFault(fault: FaultSpec): void;
  faults(): FaultSpec[];
}

export async function startManyChatSandbox(opts: ManyChatSandboxOptions = {}): Promise<ManyChatSandbox> {
  const state = new SandboxState(opts.now ?? Date.now);
  state.autoSubscribers = opts.autoSubscribers ?? false;
  for (const p of opts.pages ?? []) state.addPage(p);
  for (const p of opts.messengerPages ?? []) state.addMessengerPage(p);
  for (const s of opts.subscribers ?? []) state.addSubscriber(s);

  const closing = new AbortController();
  const app = createSandboxApp({ state, enforceRateLimits: opts.enforceRateLimits ?? true, closing: closing.signal });
  const host = opts.host ?? '127.0.0.1';
  const { server, port } = await new Promise<{ server: Server; port: number }>((resolve, reject) => {
    // serve() returns a node:http Server here because no http2/https createServer is passed.
    const s = serve({ fetch: app.fetch, port: opts.port ?? 0, hostname: host }, (info: AddressInfo) =>
      resolve({ server: s, port: info.port }),
    ) as Server;
    s.once('error', reject);
  });

  const urlHost = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${urlHost}:${port}`,
    port,
    calls: (filter) => state.listCalls(filter),
    reset: () => state.reset(),
    close: () =>
      new Promise<void>((resolve) => {
        closing.abort();
        server.close(() => resolve());
        server.closeAllConnections(); // hung and keep-alive sockets would otherwise hold close() open
      }),
    addPage: (p) => void state.addPage(p),
    addMessengerPage: (p) => void state.addMessengerPage(p),
    addSubscriber: (s) => void state.addSubscriber(s),
    subscriber: (pageId, id) => {
      const sub = state.subscriber(pageId, id);
      return sub && subscriberView(state, sub);
    },
    page: (pageId) => {
      const page = state.pages.get(pageId);
      if (!page) return undefined;
      const { keyDigest: _digest, ...view } = page;
      return structuredClone(view);
    },
    touch: (pageId, id) => state.touch(pageId, id) !== undefined,
    injectFault: (f) => void state.addFault(f),
    faults: () => state.pendingFaults(),
  };
}

/**
 * What ManyChat would refuse in a Dynamic Block answer shown to a contact on `channel` (the v2
 * format and that channel's rules, with ManyChat's words): the webhook's answers are checked with
 * it in tests and evals, so a reply a channel refuses fails here as it would in production.
 */
export function dynamicBlockProblems(channel: SandboxChannel, body: unknown): string[] {
  const parsed = V2Content.safeParse(body);
  if (!parsed.success) return issueLines(parsed.error.issues, 'data');
  return channelProblems(channel, parsed.data);
}
