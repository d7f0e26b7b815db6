import { createHash, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import { Engine, type DevMessageView } from './qstash-broker/engine.js';
import { BadRequest, parseDestination, parsePublishHeaders } from './qstash-broker/parse.js';

/**
 * A local, offline stand-in for Upstash QStash v2, good enough for the unchanged `@upstash/qstash`
 * `Client({ baseUrl, token })` and `Receiver({ currentSigningKey, nextSigningKey })`.
 *
 * Real API: POST /v2/publish/{destination}, POST /v2/batch, GET /v2/keys, GET|DELETE /v2/messages/{id},
 * DELETE /v2/messages, GET|DELETE /v2/dlq, GET|DELETE /v2/dlq/{dlqId}, POST /v2/dlq/retry[/{dlqId}].
 * Dev-only (no auth, not in QStash): GET /__dev/messages[/{id}], POST /__dev/pause, /__dev/resume,
 * /__dev/fail-publish {"count":N}.
 *
 * Differences from real QStash: state lives in memory (a restart loses pending messages and the DLQ);
 * the default backoff is milliseconds-scale (min(retryBaseMs·2^n, maxRetryDelayMs)) instead of
 * e^(2.5n) seconds; no URL groups, queues, schedules, flow control, logs or workflows; 3xx responses
 * are failures (no redirect following).
 *
 * Run standalone: `npx tsx dev/qstash-broker.ts` (env QSTASH_DEV_PORT, QSTASH_TOKEN,
 * QSTASH_CURRENT_SIGNING_KEY, QSTASH_NEXT_SIGNING_KEY; defaults are the SDK's dev-server credentials).
 */
export interface QStashBrokerOptions {
  token: string;
  currentSigningKey: string;
  nextSigningKey: string;
  /** 0 = ephemeral. Default 0. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** Retry n (0-based) waits min(retryBaseMs · 2^n, maxRetryDelayMs). Defaults 500 ms and 30 s. */
  retryBaseMs?: number;
  maxRetryDelayMs?: number;
  /** Per-attempt delivery timeout when Upstash-Timeout is absent. Default 120 s. */
  defaultTimeoutMs?: number;
  /** Default 10 minutes, as documented for QStash. */
  dedupWindowMs?: number;
  /** Which key signs deliveries, to exercise key rotation. Default 'current'. */
  signWith?: 'current' | 'next';
  log?: (line: string) => void;
}

export interface QStashBroker {
  /** Base URL for `new Client({ baseUrl: broker.url, token })`. */
  url: string;
  port: number;
  close(): Promise<void>;
  /** Stop / restart deliveries (publishing keeps working), like QStash being unable to deliver. */
  pause(): void;
  resume(): void;
  /** The next `count` publish/batch requests answer 500. */
  failNextPublishes(count: number): void;
  /** Every known message with its state and delivery attempts. */
  messages(): DevMessageView[];
  message(id: string): DevMessageView | undefined;
}

export type { DevMessageView, MessageState, Attempt } from './qstash-broker/engine.js';

/** Credentials the SDK hard-codes for `qstash dev` (user 1); reusing them lets `QSTASH_DEV=true` apps find us. */
export const QSTASH_DEV_CREDENTIALS = {
  token: 'eyJVc2VySUQiOiJkZWZhdWx0VXNlciIsIlBhc3N3b3JkIjoiZGVmYXVsdFBhc3N3b3JkIn0=',
  currentSigningKey: 'sig_7kYjw48mhY7kAjqNGcy6cr29RJ6r',
  nextSigningKey: 'sig_5ZB6DVzB1wjE8S6rZ7eenA8Pdnhs',
} as const;

const MAX_BODY_BYTES = 10 * 1024 * 1024;

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  if (res.headersSent) return;
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) reject(new HttpError(413, `body larger than ${MAX_BODY_BYTES} bytes`));
      else chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/** node:http headers → web Headers, so the parser is shared with /v2/batch's JSON header maps. */
function webHeaders(req: IncomingMessage): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
  }
  return headers;
}

/** Hashing first makes the comparison constant-time regardless of token length. */
function tokenMatches(header: string | undefined, token: string): boolean {
  const given = /^Bearer\s+(.+)$/i.exec(header ?? '')?.[1]?.trim() ?? '';
  const digest = (s: string) => createHash('sha256').update(s).digest();
  return timingSafeEqual(digest(given), digest(token)) && given.length > 0;
}

function splitUrl(raw: string): { path: string; query: URLSearchParams } {
  const q = raw.indexOf('?');
  return { path: q < 0 ? raw : raw.slice(0, q), query: new URLSearchParams(q < 0 ? '' : raw.slice(q + 1)) };
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new BadRequest(`malformed path segment: ${segment}`);
  }
}

function parseCount(query: URLSearchParams): number | undefined {
  const raw = query.get('count');
  if (raw === null) return undefined;
  if (!/^\d+$/.test(raw) || Number(raw) < 1) throw new BadRequest(`invalid count query parameter: ${raw}`);
  return Number(raw);
}

/** Offset cursors: enough for a dev DLQ that rarely holds more than a page. */
function page<T>(items: T[], query: URLSearchParams): { items: T[]; cursor?: string } {
  const count = parseCount(query) ?? 100;
  const rawCursor = query.get('cursor');
  const start = rawCursor && /^\d+$/.test(rawCursor) ? Number(rawCursor) : 0;
  const end = start + count;
  return { items: items.slice(start, end), ...(end < items.length ? { cursor: String(end) } : {}) };
}

interface BatchItem {
  destination: string;
  headers: Headers;
  body: Buffer;
}

function parseBatch(body: Buffer): BatchItem[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {
    throw new BadRequest('batch body must be a JSON array of {destination, headers?, body?}');
  }
  if (!Array.isArray(parsed)) throw new BadRequest('batch body must be a JSON array of {destination, headers?, body?}');
  return parsed.map((item: unknown, i): BatchItem => {
    if (typeof item !== 'object' || item === null) throw new BadRequest(`batch[${i}] must be an object`);
    const { destination, headers = {}, body = '', queue } = item as Record<string, unknown>;
    if (typeof destination !== 'string') throw new BadRequest(`batch[${i}].destination must be a string`);
    if (queue !== undefined) throw new BadRequest(`batch[${i}].queue: queues are not supported by the dev broker`);
    if (typeof body !== 'string') throw new BadRequest(`batch[${i}].body must be a string`);
    if (typeof headers !== 'object' || headers === null || Object.values(headers).some((v) => typeof v !== 'string')) {
      throw new BadRequest(`batch[${i}].headers must be an object of strings`);
    }
    try {
      return { destination, headers: new Headers(headers as Record<string, string>), body: Buffer.from(body) };
    } catch (err) {
      throw new BadRequest(`batch[${i}].headers: ${(err as Error).message}`);
    }
  });
}

type Handler = (req: IncomingMessage, res: ServerResponse, match: RegExpExecArray, query: URLSearchParams) => Promise<void> | void;
/** `rawUrl`: match against path plus query, because publish's destination owns the query string. */
type Route = [method: string, pattern: RegExp, handler: Handler, rawUrl?: 'rawUrl'];

export async function startQStashBroker(opts: QStashBrokerOptions): Promise<QStashBroker> {
  const log = opts.log ?? (() => {});
  const engine = new Engine({
    signingKey: () => (opts.signWith === 'next' ? opts.nextSigningKey : opts.currentSigningKey),
    retryBaseMs: opts.retryBaseMs ?? 500,
    maxRetryDelayMs: opts.maxRetryDelayMs ?? 30_000,
    defaultTimeoutMs: opts.defaultTimeoutMs ?? 120_000,
    dedupWindowMs: opts.dedupWindowMs ?? 600_000,
    log,
  });
  let failPublishes = 0;

  /** The simulated outage applies to publish-type requests only, after auth like a real 5xx would. */
  const maybeFailPublish = () => {
    if (failPublishes <= 0) return;
    failPublishes--;
    log(`simulated publish failure (${failPublishes} more)`);
    throw new HttpError(500, 'simulated publish failure (/__dev/fail-publish)');
  };

  const publishOne = (destination: string, headers: Headers, body: Buffer, callerIp: string | undefined) => {
    const url = parseDestination(destination);
    return engine.publish({ url, spec: parsePublishHeaders(headers), body, callerIp });
  };

  const v2: Route[] = [
    [
      'POST',
      /^\/v2\/publish\/(.*)$/s,
      async (req, res, m) => {
        maybeFailPublish();
        const body = await readBody(req);
        const r = publishOne(m[1] ?? '', webHeaders(req), body, req.socket.remoteAddress);
        sendJson(res, r.deduplicated ? 202 : 200, r.deduplicated ? { messageId: r.messageId, deduplicated: true } : { messageId: r.messageId });
      },
      'rawUrl',
    ],
    [
      'POST',
      /^\/v2\/batch$/,
      async (req, res) => {
        maybeFailPublish();
        const items = parseBatch(await readBody(req));
        // Validate everything first so a bad item rejects the whole batch instead of half-publishing it.
        const prepared = items.map((it, i) => {
          try {
            return { url: parseDestination(it.destination), spec: parsePublishHeaders(it.headers), body: it.body };
          } catch (err) {
            throw err instanceof BadRequest ? new BadRequest(`batch[${i}]: ${err.message}`) : err;
          }
        });
        const results = prepared.map((p) => engine.publish({ ...p, callerIp: req.socket.remoteAddress }));
        sendJson(res, 200, results.map((r) => (r.deduplicated ? { messageId: r.messageId, deduplicated: true } : { messageId: r.messageId })));
      },
    ],
    ['GET', /^\/v2\/keys$/, (_req, res) => sendJson(res, 200, { current: opts.currentSigningKey, next: opts.nextSigningKey })],
    [
      'GET',
      /^\/v2\/messages\/([^/]+)$/,
      (_req, res, m) => {
        const view = engine.view(decodeSegment(m[1] ?? ''));
        if (!view) throw new HttpError(404, 'message not found');
        sendJson(res, 200, view);
      },
    ],
    [
      'DELETE',
      /^\/v2\/messages\/([^/]+)$/,
      (_req, res, m) => {
        const id = decodeSegment(m[1] ?? '');
        if (!engine.view(id)) throw new HttpError(404, 'message not found');
        if (!engine.cancel(id)) throw new HttpError(404, `message ${id} is not pending (already delivered, failed or cancelled)`);
        sendJson(res, 200, { cancelled: 1 });
      },
    ],
    [
      'DELETE',
      /^\/v2\/messages$/,
      (_req, res, _m, q) => {
        const ids = q.getAll('messageIds');
        sendJson(res, 200, { cancelled: engine.cancelMany(ids.length ? ids : 'all') });
      },
    ],
    [
      'GET',
      /^\/v2\/dlq$/,
      (_req, res, _m, q) => {
        const all = engine.dlqList({ dlqIds: q.getAll('dlqIds'), messageId: q.get('messageId') ?? undefined, url: q.get('url') ?? undefined });
        const { items, cursor } = page(all, q);
        sendJson(res, 200, { messages: items, ...(cursor ? { cursor } : {}) });
      },
    ],
    [
      'DELETE',
      /^\/v2\/dlq$/,
      (_req, res, _m, q) => {
        const { items, cursor } = bulk(q);
        for (const e of items) engine.dlqDelete(e.dlqId);
        sendJson(res, 200, { deleted: items.length, ...(cursor ? { cursor } : {}) });
      },
    ],
    [
      'POST',
      /^\/v2\/dlq\/retry$/,
      (req, res, _m, q) => {
        const overrides = parsePublishHeaders(webHeaders(req));
        const { items, cursor } = bulk(q);
        const responses = items.map((e) => ({ messageId: engine.dlqRetry(e.dlqId, overrides) }));
        sendJson(res, 200, { responses, ...(cursor ? { cursor } : {}) });
      },
    ],
    [
      'POST',
      /^\/v2\/dlq\/retry\/([^/]+)$/,
      (req, res, m) => {
        const messageId = engine.dlqRetry(decodeSegment(m[1] ?? ''), parsePublishHeaders(webHeaders(req)));
        if (!messageId) throw new HttpError(404, 'dlq message not found');
        sendJson(res, 200, { messageId });
      },
    ],
    [
      'GET',
      /^\/v2\/dlq\/([^/]+)$/,
      (_req, res, m) => {
        const view = engine.dlqGet(decodeSegment(m[1] ?? ''));
        if (!view) throw new HttpError(404, 'dlq message not found');
        sendJson(res, 200, view);
      },
    ],
    [
      'DELETE',
      /^\/v2\/dlq\/([^/]+)$/,
      (_req, res, m) => {
        if (!engine.dlqDelete(decodeSegment(m[1] ?? ''))) throw new HttpError(404, 'dlq message not found');
        sendJson(res, 200, { deleted: 1 });
      },
    ],
  ];

  /** Bulk DLQ actions: by dlqIds, or the first `count` entries matching the filters (cursor = more left). */
  function bulk(q: URLSearchParams) {
    const matching = engine.dlqList({ dlqIds: q.getAll('dlqIds'), messageId: q.get('messageId') ?? undefined, url: q.get('url') ?? undefined });
    const count = parseCount(q) ?? 100;
    const items = matching.slice(0, count);
    // Processed entries leave the DLQ, so the next page starts at 0 again.
    return { items, cursor: matching.length > count ? '0' : undefined };
  }

  const dev: Route[] = [
    ['GET', /^\/__dev\/messages$/, (_req, res) => sendJson(res, 200, { paused: engine.isPaused, messages: engine.devList() })],
    [
      'GET',
      /^\/__dev\/messages\/([^/]+)$/,
      (_req, res, m) => {
        const view = engine.devView(decodeSegment(m[1] ?? ''));
        if (!view) throw new HttpError(404, 'message not found');
        sendJson(res, 200, view);
      },
    ],
    ['POST', /^\/__dev\/pause$/, (_req, res) => (engine.pause(), sendJson(res, 200, { paused: true }))],
    ['POST', /^\/__dev\/resume$/, (_req, res) => (engine.resume(), sendJson(res, 200, { paused: false }))],
    [
      'POST',
      /^\/__dev\/fail-publish$/,
      async (req, res) => {
        const text = (await readBody(req)).toString('utf8').trim();
        let count: unknown = 1;
        try {
          if (text) count = (JSON.parse(text) as { count?: unknown }).count ?? 1;
        } catch {
          throw new BadRequest('fail-publish body must be JSON like {"count": 2}');
        }
        if (typeof count !== 'number' || !Number.isInteger(count) || count < 0) throw new BadRequest('fail-publish "count" must be a non-negative integer');
        failPublishes = count;
        sendJson(res, 200, { failPublish: count });
      },
    ],
  ];

  async function route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const raw = req.url ?? '/';
    const isV2 = raw.startsWith('/v2/');
    if (isV2 && !tokenMatches(req.headers.authorization, opts.token)) throw new HttpError(401, 'Unauthorized: missing or invalid bearer token');
    const table = isV2 ? v2 : raw.startsWith('/__dev/') ? dev : [];
    const { path, query } = splitUrl(raw);
    for (const [method, pattern, handler, rawUrl] of table) {
      const m = pattern.exec(rawUrl ? raw : path);
      if (m && req.method === method) return handler(req, res, m, query);
    }
    throw new HttpError(404, `no route for ${req.method} ${path}`);
  }

  const server = createServer((req, res) => {
    req.on('error', () => {}); // a client that hangs up mid-body must not crash the broker
    route(req, res).catch((err: unknown) => {
      if (err instanceof HttpError) sendJson(res, err.status, { error: err.message });
      else if (err instanceof BadRequest) sendJson(res, 400, { error: err.message });
      else {
        log(`internal error: ${err instanceof Error ? err.stack : String(err)}`);
        sendJson(res, 500, { error: `internal error: ${err instanceof Error ? err.message : String(err)}` });
      }
    });
  });
  server.on('clientError', (_err, socket) => socket.destroy());

  const host = opts.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  log(`listening on ${url}`);

  let closing: Promise<void> | undefined;
  return {
    url,
    port,
    close: () =>
      (closing ??= (async () => {
        await engine.close();
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
      })()),
    pause: () => engine.pause(),
    resume: () => engine.resume(),
    failNextPublishes: (count) => {
      failPublishes = Math.max(0, Math.floor(count));
    },
    messages: () => engine.devList(),
    message: (id) => engine.devView(id),
  };
}

/** `npx tsx dev/qstash-broker.ts`: a long-running dev broker that prints the env block to use. */
async function main(): Promise<void> {
  const env = process.env;
  const creds = {
    token: env.QSTASH_TOKEN ?? QSTASH_DEV_CREDENTIALS.token,
    currentSigningKey: env.QSTASH_CURRENT_SIGNING_KEY ?? QSTASH_DEV_CREDENTIALS.currentSigningKey,
    nextSigningKey: env.QSTASH_NEXT_SIGNING_KEY ?? QSTASH_DEV_CREDENTIALS.nextSigningKey,
  };
  const broker = await startQStashBroker({ ...creds, port: Number(env.QSTASH_DEV_PORT ?? 8080), log: (line) => console.log(`[qstash-broker] ${line}`) });
  console.log(`QSTASH_URL=${broker.url}\nQSTASH_TOKEN=${creds.token}`);
  console.log(`QSTASH_CURRENT_SIGNING_KEY=${creds.currentSigningKey}\nQSTASH_NEXT_SIGNING_KEY=${creds.nextSigningKey}`);
  console.log('State is in memory only: restarting the broker loses pending messages and the DLQ.');
  const stop = () => void broker.close().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main().catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
}
