import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import { Engine } from './qstash-broker/engine.js';
import { findRoute, HttpError, sendError, tokenMatches } from './qstash-broker/http.js';
import { devRoutes } from './qstash-broker/routes/dev.js';
import { dlqRoutes } from './qstash-broker/routes/dlq.js';
import { logRoutes } from './qstash-broker/routes/logs.js';
import { messageRoutes } from './qstash-broker/routes/messages.js';
import { notOfferedRoutes } from './qstash-broker/routes/not-offered.js';
import type { BrokerParts } from './qstash-broker/routes/parts.js';
import { publishRoutes } from './qstash-broker/routes/publish.js';
import { scheduleRoutes } from './qstash-broker/routes/schedules.js';
import { Scheduler } from './qstash-broker/scheduler.js';
import { devMessageView, type DevMessageView } from './qstash-broker/views.js';

/**
 * A local, offline stand-in for Upstash QStash v2, good enough for the unchanged `@upstash/qstash`
 * `Client({ baseUrl, token })` and `Receiver({ currentSigningKey, nextSigningKey })`.
 *
 * Real API: POST /v2/publish/{destination}, POST /v2/batch, GET /v2/keys, GET|DELETE /v2/messages/{id},
 * DELETE /v2/messages (bulk cancel), GET|DELETE /v2/dlq, GET|DELETE /v2/dlq/{dlqId},
 * POST /v2/dlq/retry[/{dlqId}], schedules (/v2/schedules…), logs (GET /v2/events, /v2/logs).
 * List and bulk endpoints take every filter QStash documents for them (labels, flow-control key,
 * URL, host/path where QStash takes them, response status, dates…) and `count`; an unknown filter
 * is a 400. Labels (`Upstash-Label`) and flow control (`Upstash-Flow-Control-*`) are kept on
 * messages, DLQ entries, logs and schedules.
 * Not offered, answered 501 naming the endpoint: queues, URL groups, the flow-control management
 * API, workflows, key rotation. Flow control on publish (parallelism, rate per period) is applied.
 * Dev-only (no auth, not in QStash): GET /__dev/messages[/{id}], POST /__dev/pause, /__dev/resume,
 * /__dev/fail-publish {"count":N}, /__dev/schedules/{id}/trigger.
 *
 * Differences from real QStash: state lives in memory (a restart loses pending messages, schedules
 * and the DLQ); the default backoff is milliseconds-scale (min(retryBaseMs·2^n, maxRetryDelayMs))
 * instead of e^(2.5n) seconds; 3xx responses are failures (no redirect following); cursors are
 * opaque sequence numbers.
 *
 * Layout (dev/qstash-broker/): engine.ts (store, delivery loop), delivery.ts (one signed attempt), flow-control.ts,
 * dead-letters.ts, event-log.ts, scheduler.ts, filters.ts + paging.ts (list/bulk queries), parse.ts
 * (publish headers), views.ts (API shapes), http.ts (plumbing), routes/*.ts (one file per API group).
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
  /** How many of those refusals are still to come (0 once every refused publish has arrived). */
  publishFailuresLeft(): number;
  /** Every known message with its state and delivery attempts. */
  messages(): DevMessageView[];
  message(id: string): DevMessageView | undefined;
  /** Publishes a schedule's message now, as its next cron tick would; undefined for an unknown schedule. */
  triggerSchedule(scheduleId: string): string | undefined;
}

export type { MessageState, Attempt } from './qstash-broker/types.js';
export type { DevMessageView } from './qstash-broker/views.js';

/** Credentials the SDK hard-codes for `qstash dev` (user 1); reusing them lets `QSTASH_DEV=true` apps find us. */
export const QSTASH_DEV_CREDENTIALS = {
  token: 'eyJVc2VySUQiOiJkZWZhdWx0VXNlciIsIlBhc3N3b3JkIjoiZGVmYXVsdFBhc3N3b3JkIn0=',
  currentSigningKey: 'sig_7kYjw48mhY7kAjqNGcy6cr29RJ6r',
  nextSigningKey: 'sig_5ZB6DVzB1wjE8S6rZ7eenA8Pdnhs',
} as const;

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
  const scheduler = new Scheduler(engine, log);
  let failPublishes = 0;
  const parts: BrokerParts = {
    engine,
    scheduler,
    signingKeys: { current: opts.currentSigningKey, next: opts.nextSigningKey },
    // The simulated outage applies to publish-type requests only, after auth like a real 5xx would.
    maybeFailPublish: () => {
      if (failPublishes <= 0) return;
      failPublishes--;
      log(`simulated publish failure (${failPublishes} more)`);
      throw new HttpError(500, 'simulated publish failure (/__dev/fail-publish)');
    },
    setFailPublishes: (count) => {
      failPublishes = Math.max(0, Math.floor(count));
    },
    publishFailuresLeft: () => failPublishes,
  };
  const v2 = [
    ...publishRoutes(parts),
    ...messageRoutes(parts),
    ...dlqRoutes(parts),
    ...scheduleRoutes(parts),
    ...logRoutes(parts),
    ...notOfferedRoutes(),
  ];
  const dev = devRoutes(parts);

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const raw = req.url ?? '/';
    const isV2 = raw.startsWith('/v2/');
    if (isV2 && !tokenMatches(req.headers.authorization, opts.token))
      throw new HttpError(401, 'Unauthorized: missing or invalid bearer token');
    const found = findRoute(isV2 ? v2 : raw.startsWith('/__dev/') ? dev : [], req);
    if (!found) throw new HttpError(404, `no route for ${req.method} ${raw.split('?')[0]}`);
    await found.route.handler({ req, res, match: found.match, query: found.query });
  }

  const server = createServer((req, res) => {
    req.on('error', () => {}); // a client that hangs up mid-body must not crash the broker
    handle(req, res).catch((err: unknown) => sendError(res, err, log));
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
        scheduler.close();
        await engine.close();
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
      })()),
    pause: () => engine.pause(),
    resume: () => engine.resume(),
    failNextPublishes: (count) => parts.setFailPublishes(count),
    publishFailuresLeft: () => parts.publishFailuresLeft(),
    messages: () => engine.all().map(devMessageView),
    message: (id) => {
      const m = engine.get(id);
      return m && devMessageView(m);
    },
    triggerSchedule: (scheduleId) => scheduler.fire(scheduleId),
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
  const broker = await startQStashBroker({
    ...creds,
    port: Number(env.QSTASH_DEV_PORT ?? 8080),
    log: (line) => console.log(`[qstash-broker] ${line}`),
  });
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
